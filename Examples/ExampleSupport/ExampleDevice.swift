import Baton
import BatonContinuity
import Foundation

/// Prints one line of an example's transcript. Anything another device sent goes through
/// `shown(_:)` first.
public func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// `text`, from another device, made safe to print: control and bidirectional characters
/// written as visible escapes (`PrintableText.escaped`).
public func shown(_ text: String) -> String { PrintableText.escaped(text) }

/// An example app's continuity node, and the "continue what another device offers" flow.
@MainActor
public final class ExampleDevice {
    public let options: DeviceOptions
    public private(set) var node: ContinuityNode?
    private var observer: NSObjectProtocol?
    private var continued = false

    public init(_ options: DeviceOptions) { self.options = options }

    /// Starts the node; says where it listens. Throws what stopped it.
    public func start() throws {
        let node = try ContinuityNode(identity: try DeviceIdentity.load(from: options.directory),
                                      identityDirectory: options.directory, staticPeers: options.peers)
        try node.start(host: options.listen.host, port: options.listen.port)
        self.node = node
        say("device \(shown(node.identity.name)) listening on \(PeerAddress(host: options.listen.host, port: node.port ?? 0))")
    }

    /// Continues the first nearby activity whose type is one of `types` as soon as one is
    /// offered; then `whenGone` runs once the device it came from has gone.
    public func continueFirstNearby(of types: [String], whenGone: @escaping @MainActor () -> Void) {
        observer = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification,
                                                          object: nil, queue: nil) { [weak self] _ in
            MainActor.assumeIsolated { self?.nearbyChanged(types, whenGone) }
        }
    }

    private func nearbyChanged(_ types: [String], _ whenGone: @MainActor () -> Void) {
        let nearby = Application.shared.nearbyActivities
        if continued {
            if nearby.isEmpty { whenGone() }
            return
        }
        guard let entry = nearby.first(where: { types.contains($0.activityType) }) else { return }
        continued = true
        say("nearby: \"\(shown(entry.title ?? ""))\" (\(shown(entry.activityType))) on \(shown(entry.device))")
        Application.shared.continueNearbyActivity(entry)
    }

    public func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        node?.stop()
    }
}
