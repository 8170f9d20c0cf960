import Baton
import Foundation

/// The agent's settings: `agent.conf` in the user's Baton configuration folder
/// (`$XDG_CONFIG_HOME/baton/agent.conf`), a GLib key file:
///
///     [Agent]
///     Listen=127.0.0.1:0        # where the device listens (as --listen); default every interface, any port
///     Notifications=false       # no desktop notifications: "Continue … from …", pairing requests (default true)
///     Authority=/path/to/baton  # the configuration folder whose group/ holds the group's authority
///                               # (as --authority; default: the folder holding the device's identity)
///
/// A missing file means the defaults. A file that cannot be read or parsed, or a value of the
/// wrong kind, is an error that names the file and the key: the agent says so and does not
/// start with settings the person did not mean.
public struct AgentSettings: Sendable, Equatable {
    /// `Notifications`: whether nearby activities are shown as desktop notifications.
    public var notifications = true
    /// `Listen`: the address the device listens on, as `--listen` takes it; nil for the default.
    public var listen: String?
    /// `Authority`: the configuration folder whose `group/` holds the group's authority, for
    /// pairing windows (as `--authority`); nil for the default.
    public var authority: String?

    /// Settings with these values (the defaults: notifications on, the default address and
    /// authority folder).
    public init(notifications: Bool = true, listen: String? = nil, authority: String? = nil) {
        self.notifications = notifications
        self.listen = listen
        self.authority = authority
    }

    /// The file in `configuration`.
    public static func file(in configuration: ConfigDirectory) -> URL { configuration.url.appendingPathComponent("agent.conf") }

    /// Reads `file`; the defaults if it does not exist.
    public static func read(from file: URL) throws(AgentSettingsError) -> AgentSettings {
        do {
            let keys = try KeyFile(contentsOf: file.path, limit: 64 * 1024)
            var settings = AgentSettings()
            if let notifications = try keys.boolean("Agent", "Notifications") { settings.notifications = notifications }
            settings.listen = keys.string("Agent", "Listen")
            settings.authority = keys.string("Agent", "Authority")
            return settings
        } catch .read(.missing) {
            return AgentSettings()
        } catch {
            throw AgentSettingsError(error, path: file.path)
        }
    }
}

/// Why `agent.conf` was refused; each names the file (and the key).
public enum AgentSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The file is not a valid key file.
    case malformed(path: String, reason: String)
    /// `key` has a value of the wrong kind.
    case badValue(path: String, key: String, reason: String)

    init(_ failure: KeyFile.Failure, path: String) {
        switch failure {
        case .read(let failure): self = .unreadable(path: path, reason: "\(failure)")
        case .malformed(let reason): self = .malformed(path: path, reason: reason)
        case .badValue(let key, let reason): self = .badValue(path: path, key: key, reason: reason)
        }
    }

    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .unreadable(let path, let reason): "cannot read \(shown(path)): \(reason)"
        case .malformed(let path, let reason): "\(shown(path)) is not a key file: \(reason)"
        case .badValue(let path, let key, let reason): "\(shown(path)): [Agent] \(key): \(reason)"
        }
    }
}
