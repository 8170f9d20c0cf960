@testable import BatonContinuity
import BatonLoop
import Foundation

/// Strangers that keep `count` silent TCP connections open to `127.0.0.1:port`, from the
/// loopback addresses `sources` (all of 127/8 is this machine) in turn, and reconnect the
/// moment the listener closes one: the attack of issue 26, at the rate the loop allows. They
/// never send a byte (they hold no discovery key, and wait for nothing). `stop()` closes them
/// all (every test that makes them calls it).
@MainActor
final class ReconnectingStrangers {
    /// How many connections were made in all (each reconnect counts).
    private(set) var connections = 0
    /// How many of those the listener closed.
    private(set) var closedByListener = 0
    private let port: UInt16
    private let sources: [String]
    private var sockets: [Int32: LoopSource] = [:]
    private var next = 0
    private var stopped = false

    init(count: Int, to port: UInt16, from sources: [String]) {
        self.port = port
        self.sources = sources
        for _ in 0..<count { connect() }
    }

    /// How many connections are open now.
    var open: Int { sockets.count }

    /// Closes every connection; no more are made.
    func stop() {
        stopped = true
        for (fd, watch) in sockets {
            watch.cancel()
            close(fd)
        }
        sockets = [:]
    }

    private func connect() {
        guard !stopped else { return }
        let source = sources[next % sources.count]
        next += 1
        guard let fd = try? loopbackConnection(from: source, to: port) else { return retryLater() }
        connections += 1
        sockets[fd] = MainLoop.whenReadable(fd) { [weak self] in
            var byte: UInt8 = 0
            let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
            // The listener's admission gate sends a nonce: read and ignore it.
            guard count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) else { return .again }
            self?.ended(fd)
            return .stop
        }
    }

    /// The listener closed `fd`: a new connection at once.
    private func ended(_ fd: Int32) {
        guard sockets.removeValue(forKey: fd) != nil else { return }
        close(fd)
        closedByListener += 1
        connect()
    }

    /// No socket or no port to connect from now: again in a millisecond.
    private func retryLater() {
        guard !stopped else { return }
        _ = MainLoop.after(.milliseconds(1)) { [weak self] in self?.connect() }
    }
}

/// How many descriptors process `pid` holds open now (`/proc/PID/fd`); nil if it is gone.
func openDescriptors(of pid: Int32) -> Int? {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
}

/// The resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`).
func residentKiB(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
}
