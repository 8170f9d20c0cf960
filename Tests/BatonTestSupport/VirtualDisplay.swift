import Foundation
import HostSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// An X server of a test's own, with no screen (Xvfb): GTK apps started with `environment`
/// open their windows on it. It picks a free display number itself (`-displayfd`: the server
/// writes the number once it accepts connections, so the test waits for that event, not for a
/// guessed time). It listens on its Unix socket only (`-nolisten tcp`).
///
/// The server is a `ChildProcess`: it ends with the test that started it (or when released),
/// whatever happens to the test.
public final class VirtualDisplay: @unchecked Sendable {
    /// Where Debian's `xvfb` package installs the server.
    public static let serverPath = "/usr/bin/Xvfb"

    /// The display's name, `":N"`.
    public let name: String
    private let server: ChildProcess

    /// Throws `XCTSkip` (with the reason) when Xvfb is not installed.
    public static func requireServer() throws {
        guard FileManager.default.isExecutableFile(atPath: serverPath) else {
            throw XCTSkip("no virtual display: \(serverPath) is not installed (Debian package xvfb; scripts/install-deps.sh installs it)")
        }
    }

    /// Starts a server with one screen of `width`×`height` at 24 bits; waits at most `timeout`
    /// for it to accept connections. Throws `XCTSkip` when Xvfb is not installed.
    public init(width: Int = 1280, height: Int = 800, timeout: TimeInterval = 30) throws {
        try Self.requireServer()
        let output = try makePipe(), errors = try makePipe()
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        do {
            defer { close(output.write); close(errors.write) }
            server = try ChildProcess(
                executable: Self.serverPath,
                ["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "\(width)x\(height)x24"],
                environment: nil, standardInput: input, standardOutput: output.write, standardError: errors.write)
        } catch {
            close(output.read); close(errors.read)
            throw error
        }
        let number = OutputReader(output.read)
        log = OutputReader(errors.read)
        let deadline = Date(timeIntervalSinceNow: timeout)
        number.condition.lock()
        while !number.textLocked.contains("\n"), !number.ended, number.condition.wait(until: deadline) {}
        let text = number.textLocked.trimmingCharacters(in: .whitespacesAndNewlines)
        number.condition.unlock()
        guard let display = Int(text) else {
            server.end(grace: 1)
            throw VirtualDisplayError.didNotStart(log.text)
        }
        name = ":\(display)"
    }

    /// What the server wrote to its standard error (for failure messages).
    private let log: OutputReader
    public var serverLog: String { log.text }

    /// The environment for a GTK process on this display: the X11 backend (never a Wayland
    /// compositor of the machine), the software renderer (Xvfb has no GPU), no accessibility
    /// bus and in-memory settings (nothing of the machine's session is used).
    public var environment: [String: String] {
        ["DISPLAY": name, "GDK_BACKEND": "x11", "WAYLAND_DISPLAY": "", "GSK_RENDERER": "cairo",
         "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory"]
    }

    /// Whether the server still runs.
    public var isRunning: Bool { server.isRunning }

    /// Stops the server (SIGTERM, then SIGKILL); bounded.
    public func stop() { server.end(grace: 3) }

    deinit { server.end(grace: 3) }
}

/// Why a virtual display could not be used.
public enum VirtualDisplayError: Error, CustomStringConvertible {
    /// The server ended or did not say its display number in time; its error output.
    case didNotStart(String)

    public var description: String {
        switch self {
        case .didNotStart(let log): "Xvfb did not start: \(log)"
        }
    }
}
