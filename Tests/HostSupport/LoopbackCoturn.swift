import Foundation

/// A real coturn (Debian's `coturn`) on loopback, taking only TURN REST credentials made with
/// its secret (`use-auth-secret`), its relayed ports in a range of 100 picked from its own
/// port. It is a `RunningProcess`: it ends with `stop()`, when released, or with the process
/// that started it (and, in a test bundle, with the test case).
public final class LoopbackCoturn: @unchecked Sendable {
    /// coturn's executable.
    public static let executable = "/usr/bin/turnserver"

    /// Its UDP port on 127.0.0.1.
    public let port: UInt16
    /// The process (its output is coturn's log).
    public let process: RunningProcess

    /// Starts coturn with `secret`, its database and pid file in `folder` (made if missing);
    /// `allowLoopbackPeers` lets it relay to loopback addresses (two sessions of one machine).
    /// Returns once it says its listeners are up; throws if it ends or `timeout` passes first.
    public init(secret: String, folder: URL, allowLoopbackPeers: Bool = true, timeout: TimeInterval = 60) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        port = try FreePort.udp()
        let relayBase = UInt16(40_000 + Int(port % 200) * 100)
        process = try RunningProcess(executable: URL(fileURLWithPath: Self.executable), [
            "-n", "--listening-ip", "127.0.0.1", "--listening-port", "\(port)", "--relay-ip", "127.0.0.1",
            "--min-port", "\(relayBase)", "--max-port", "\(relayBase + 99)",
            "--use-auth-secret", "--static-auth-secret", secret, "--realm", "baton",
            "--no-tls", "--no-dtls", "--no-cli", "--no-software-attribute",
            "--log-file", "stdout", "--userdb", folder.appendingPathComponent("turndb").path,
            "--pidfile", folder.appendingPathComponent("turnserver.pid").path,
        ] + (allowLoopbackPeers ? ["--allow-loopback-peers"] : []))
        // Its UDP listeners are made before this line (a STUN request before it is retransmitted anyway).
        guard process.waitForLine(containing: "Total General servers", timeout: timeout) != nil else {
            stop()
            throw TestHost.HostError.failed("coturn did not start on 127.0.0.1:\(port):\n\(process.output)")
        }
    }

    /// Stops coturn (SIGTERM, then SIGKILL if it lingers) and waits for it to end.
    public func stop() {
        process.terminate()
        process.waitForExit(timeout: 10)
    }
}
