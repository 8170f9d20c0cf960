import BatonContinuity
import Foundation

/// What `baton status` shows: whether the agent runs, which program and version, where the
/// device listens, whether discovery works (or why not), the linked devices, the joined apps
/// and the latest failures. The agent makes it (`GetStatus`, docs/PROTOCOL.md §5) and an app
/// reads it with `AgentConnection.status()`; `baton status --json` prints it as JSON, with the
/// property names below as keys and dates in ISO 8601 (the schema is this type).
public struct AgentStatus: Sendable, Equatable, Codable {
    /// The agent's program, as the system ran it (`/proc/self/exe`).
    public var program: String
    /// Baton's version of that program (`BatonVersion.current`).
    public var version: String
    /// The agent's process ID.
    public var processID: Int32
    /// When the agent started.
    public var startedAt: Date
    /// Who started it: `systemd` (socket activation), `autostart` (an app or `baton` that found
    /// none, `AgentAutostart`), or `command` (a person or a script ran `batond`).
    public var startedBy: String
    /// The agent's socket, where apps join it.
    public var socket: String
    /// The device's identity folder.
    public var identityFolder: String
    /// The device's name in the group, and the group's.
    public var device: String
    /// The group's name.
    public var group: String
    /// Where the device listens.
    public var listening: Listening
    /// Whether the group's devices find this one and it finds them.
    public var discovery: Discovery
    /// The devices linked now.
    public var links: [LinkStatus]
    /// The static peers it dials (the `peers` file, `$BATON_PEERS`, `--peer`).
    public var staticPeers: [String]
    /// The apps joined now.
    public var apps: [App]
    /// The latest failures, oldest first.
    public var recentFailures: [RecentFailures.Failure]

    /// Where the device listens.
    public struct Listening: Sendable, Equatable, Codable {
        /// The address listened on: `::` (every interface, IPv6 and IPv4), `0.0.0.0`, or one.
        public var host: String
        /// The port.
        public var port: UInt16
        /// `network` (other machines can reach it) or `loopback` (this machine only).
        public var reach: String
    }

    /// Discovery's state (`DiscoveryStatus`).
    public struct Discovery: Sendable, Equatable, Codable {
        /// A short name of the state (`DiscoveryStatus.code`): `running`, `no-avahi-daemon`, …
        public var state: String
        /// True when the group's devices find this one and it finds them.
        public var working: Bool
        /// What it means and what to do, in words.
        public var explanation: String
    }

    /// A joined app.
    public struct App: Sendable, Equatable, Codable {
        /// Its app ID (`CFBundleIdentifier`).
        public var appID: String
        /// Its process ID.
        public var processID: Int32
        /// Whether it is the app whose activity the device advertises now.
        public var advertised: Bool
        /// The type of the activity it advertises, if any.
        public var activityType: String?
    }

    /// This status as JSON (sorted keys, ISO 8601 dates).
    public func json(pretty: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    /// The status in `data` (as `json()` writes it); nil if it is not one.
    public static func decode(_ data: Data) -> AgentStatus? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(AgentStatus.self, from: data)
    }
}
