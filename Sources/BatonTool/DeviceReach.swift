import ArgumentParser
import BatonContinuity
import Foundation

/// A command that runs as this device (`baton nearby`, `baton continue`): its node, its
/// configured peers and any `--peer`.
protocol AsThisDevice: ParsableCommand {
    var peer: [String] { get }
    var options: ConfigOption { get }
}

/// An app a device command runs: it gets the node before launching and says how it ended.
@MainActor
protocol DeviceApp: ApplicationDelegate {
    var node: ContinuityNode? { get set }
    var failure: String? { get }
}

extension AsThisDevice {
    func validate() throws {
        for entry in peer { _ = try PeerAddress(parsing: entry, from: .argument("peer")) }
    }

    /// Runs `makeApp()` as the app of this device until it terminates; returns its failure.
    func runAsThisDevice(_ makeApp: @escaping @MainActor () -> any DeviceApp) throws -> String? {
        let directory = options.directory
        let identity = try DeviceIdentity.load(from: directory.deviceDirectory)
        let peers = try PeerConfiguration.read(directory: directory, peerArguments: peer).peers
        return MainActor.assumeIsolated {
            let app = makeApp()
            do {
                // The tool owns the loop: it makes the process's one client of avahi-daemon.
                app.node = try ContinuityNode(identity: identity, identityDirectory: directory.deviceDirectory, staticPeers: peers,
                                              avahi: AvahiConnection())
            } catch { return PrintableText.escaped("\(error)") }
            Application.main(delegate: app)
            return app.failure
        }
    }
}
