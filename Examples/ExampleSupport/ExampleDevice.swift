import Baton
import BatonContinuity
import Foundation

/// Prints one line of an example's transcript.
public func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// The value after `flag` on the command line.
public func value(after flag: String, in arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> String? {
    arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

/// What makes an example app a device of the user's group:
/// `--device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…`. Listening beyond loopback
/// (`--listen 0.0.0.0:0`), the device also finds the others through avahi-daemon.
public struct DeviceOptions: Sendable {
    public var directory: URL
    public var listen: PeerAddress
    public var peers: [PeerAddress]

    /// The options on the command line; nil without `--device`.
    public init?(arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
        guard let device = value(after: "--device", in: arguments) else { return nil }
        directory = URL(fileURLWithPath: device)
        let text = value(after: "--listen", in: arguments) ?? "0"
        let colon = text.lastIndex(of: ":")
        listen = PeerAddress(host: colon.map { String(text[..<$0]) } ?? "127.0.0.1",
                             port: UInt16(colon.map { String(text[text.index(after: $0)...]) } ?? text) ?? 0)
        peers = arguments.indices.filter { arguments[$0] == "--peer" && $0 + 1 < arguments.count }
            .compactMap { PeerAddress(arguments[$0 + 1]) }
    }

    public static let usage = "--device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…"
}

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
        say("device \(node.identity.name) listening on \(PeerAddress(host: options.listen.host, port: node.port ?? 0))")
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
        say("nearby: \"\(entry.title ?? "")\" (\(entry.activityType)) on \(entry.device)")
        Application.shared.continueNearbyActivity(entry)
    }

    public func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        node?.stop()
    }
}
