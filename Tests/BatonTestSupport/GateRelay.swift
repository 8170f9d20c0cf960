import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A relay that lets a client which knows nothing of Baton's admission gate — `openssl
/// s_client`, a raw attacker — reach a device's listener as if the gate were not there: it
/// listens on loopback, and for each client connects to the device, answers the device's nonce
/// with `answer` (the test computes it, usually with the group's discovery key), and once
/// admitted copies bytes both ways until either side ends. If the device does not admit it,
/// the client's connection is closed without a byte.
///
/// Bounded: at most `maximumConnections` at once, every wait on the device at most
/// `timeout`, a relayed connection idle for `timeout` is ended, and `close()` (also at deinit)
/// ends the listening socket and every connection at once. Plain blocking sockets on threads
/// of its own: it is the foreign side, not part of the app's loop.
public final class GateRelay: @unchecked Sendable {
    /// The loopback port clients connect to.
    public let port: UInt16

    private let listening: Int32
    private let target: UInt16
    private let answer: @Sendable (Data) -> Data
    private let timeout: TimeInterval
    private let lock = NSLock()
    private var open: Set<Int32> = []
    private var closed = false
    private static let maximumConnections = 64

    /// A relay to the device listening on `127.0.0.1:devicePort`; `answer` turns the device's
    /// 16-byte nonce into the 48 bytes to send back.
    public init(to devicePort: UInt16, timeout: TimeInterval = 20, answer: @escaping @Sendable (Data) -> Data) throws {
        target = devicePort
        self.answer = answer
        self.timeout = timeout
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, length) }
        }
        guard listening >= 0, bound == 0, listen(listening, 16) == 0 else {
            Glibc.close(listening)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listening = listening
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { close() }

    /// Stops listening and ends every relayed connection now.
    public func close() {
        lock.withLock {
            guard !closed else { return }
            closed = true
            shutdown(listening, Int32(SHUT_RDWR))
            for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        defer { Glibc.close(listening) }
        while true {
            let client = accept(listening, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            guard register(client) else { Glibc.close(client); continue }
            Thread.detachNewThread { [self] in relay(client) }
        }
    }

    /// Counts `fd` as open; false once closed or past the cap.
    private func register(_ fd: Int32) -> Bool {
        lock.withLock {
            guard !closed, open.count < Self.maximumConnections else { return false }
            open.insert(fd)
            return true
        }
    }

    private func release(_ fd: Int32) {
        lock.withLock { _ = open.remove(fd) }
        Glibc.close(fd)
    }

    private func relay(_ client: Int32) {
        defer { release(client) }
        let device = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard device >= 0 else { return }
        guard register(device) else { Glibc.close(device); return }
        defer { release(device) }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(device, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(device, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = target.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(device, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0, let serverNonce = read(device, count: 16) else { return }
        let reply = answer(serverNonce)
        guard reply.withUnsafeBytes({ send(device, $0.baseAddress, reply.count, Int32(MSG_NOSIGNAL)) }) == reply.count,
              read(device, count: 1) == Data([1]) else { return }
        splice(client, device)
    }

    /// Exactly `count` bytes from `fd`, or nil (end, error, or the receive timeout).
    private func read(_ fd: Int32, count: Int) -> Data? {
        var bytes = [UInt8](repeating: 0, count: count)
        guard recv(fd, &bytes, count, Int32(MSG_WAITALL)) == count else { return nil }
        return Data(bytes)
    }

    /// Copies both ways until both directions have ended, either side fails, or nothing moves
    /// for `timeout`. An end read on one side is passed on as a shutdown of writing on the other.
    private func splice(_ a: Int32, _ b: Int32) {
        var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var ended = [false, false]
        while !(ended[0] && ended[1]) {
            guard poll(&fds, 2, Int32(timeout * 1000)) > 0 else { return }
            for (index, from, other) in [(0, a, b), (1, b, a)] where !ended[index] && fds[index].revents != 0 {
                let count = recv(from, &buffer, buffer.count, 0)
                if count <= 0 {
                    guard count == 0 else { return }
                    ended[index] = true
                    fds[index].fd = -1  // poll ignores it from now on
                    shutdown(other, Int32(SHUT_WR))
                } else if send(other, buffer, count, Int32(MSG_NOSIGNAL)) != count {
                    return
                }
            }
        }
    }
}
