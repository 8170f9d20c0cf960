import BatonTestSupport
import Foundation

/// The agents of the tests between two test hosts.
extension AgentTestHostsCase {
    /// Hosts A (10.77.0.1) and B (10.77.0.2) on one link, each running a process that waits
    /// (the agents run beside it), kept in `hosts` for the tear-down; with `avahiOnA` false, A
    /// has no avahi-daemon.
    func hostPair(avahiOnA: Bool = true) throws -> (TestHost, TestHost) {
        let (a, b) = try TestHost.pair(["/bin/sh", "-c", "read -r end"], ["/bin/sh", "-c", "read -r end"], avahiOnA: avahiOnA)
        hosts = [a, b]
        return (a, b)
    }

    /// The command line of a `batond` for the device in `folder`, listening on `listen`
    /// (`host:port`) and serving apps on `socket`, with no configuration of its own and no
    /// notifications.
    func agentCommand(_ folder: String, listen: String, socket: String) -> [String] {
        let empty = root.appendingPathComponent("no-config").path
        return ["/usr/bin/env", "XDG_CONFIG_HOME=\(empty)", productURL("batond").path, "--device", folder, "--listen", listen,
                "--socket", socket, "--no-notifications"]
    }
}
