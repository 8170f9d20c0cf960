import Foundation

extension NatTopology {
    /// coturn on the internet host from `baton relay server-config`'s `turnserver.conf` in
    /// `servers`, listening and relaying on the internet address; returns once its listeners
    /// are open (within 60 s).
    @discardableResult
    public func startCoturn(from servers: URL) throws -> RunningProcess {
        let coturn = try start(inInternet: [
            "/usr/bin/turnserver", "-c", servers.appendingPathComponent("turnserver.conf").path,
            "--listening-ip", NatTopology.internetAddress, "--relay-ip", NatTopology.internetAddress,
            "--pidfile", folder.appendingPathComponent("turnserver.pid").path,
            "--userdb", folder.appendingPathComponent("turndb").path, "--log-file", "stdout",
        ])
        guard coturn.waitForLine(containing: "Total General servers", timeout: 60) != nil else {
            throw TestHost.HostError.failed("coturn did not start:\n\(coturn.output)")
        }
        return coturn
    }

    /// mosquitto on the internet host from `baton relay server-config`'s `baton.conf` in
    /// `servers`, whose file names start with `certificateFolder` (`RelayServerConfig`'s
    /// `mosquittoCertificateFolder`): they are read where it wrote them, and `user root` as
    /// tests and bench run as root. Returns once it runs (within 60 s).
    @discardableResult
    public func startMosquitto(from servers: URL, certificateFolder: String) throws -> RunningProcess {
        let text = try String(contentsOf: servers.appendingPathComponent("baton.conf"), encoding: .utf8)
            .replacingOccurrences(of: certificateFolder, with: servers.path)
            + "user root\npersistence false\nlog_dest stderr\n"
        let file = folder.appendingPathComponent("mosquitto.conf")
        try Data(text.utf8).write(to: file)
        let mosquitto = try start(inInternet: ["/usr/sbin/mosquitto", "-c", file.path])
        guard mosquitto.waitForLine(containing: " running", timeout: 60) != nil else {
            throw TestHost.HostError.failed("mosquitto did not start:\n\(mosquitto.output)")
        }
        return mosquitto
    }
}
