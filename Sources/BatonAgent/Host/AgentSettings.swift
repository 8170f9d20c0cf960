import BatonLoop
import CGLib
import Foundation

/// The agent's settings: `agent.conf` in the user's Baton configuration folder
/// (`$XDG_CONFIG_HOME/baton/agent.conf`), a GLib key file:
///
///     [Agent]
///     Listen=0.0.0.0:0          # where the device listens (as --listen); default 127.0.0.1:0
///     Notifications=false       # no "Continue … from …" desktop notifications (default true)
///
/// A missing file means the defaults. A file that cannot be read or parsed, or a value of the
/// wrong kind, is an error that names the file and the key: the agent says so and does not
/// start with settings the person did not mean.
public struct AgentSettings: Sendable, Equatable {
    public var notifications = true
    public var listen: String?

    public init(notifications: Bool = true, listen: String? = nil) {
        self.notifications = notifications
        self.listen = listen
    }

    /// The file in `configuration`.
    public static func file(in configuration: ConfigDirectory) -> URL { configuration.url.appendingPathComponent("agent.conf") }

    /// Reads `file`; the defaults if it does not exist.
    public static func read(from file: URL) throws(AgentSettingsError) -> AgentSettings {
        guard FileManager.default.fileExists(atPath: file.path) else { return AgentSettings() }
        let data: Data
        do { data = try FileContents.read(file.path, limit: 64 * 1024) } catch {
            throw .unreadable(path: file.path, reason: "\(error)")
        }
        let keyFile = g_key_file_new()!
        defer { g_key_file_free(keyFile) }
        var error: UnsafeMutablePointer<GError>?
        let loaded = data.withUnsafeBytes { bytes in
            g_key_file_load_from_data(keyFile, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(bytes.count),
                                      G_KEY_FILE_NONE, &error)
        }
        guard loaded != 0 else { throw .malformed(path: file.path, reason: GLibError(consuming: error!).message) }
        var settings = AgentSettings()
        if g_key_file_has_key(keyFile, "Agent", "Notifications", nil) != 0 {
            let value = g_key_file_get_boolean(keyFile, "Agent", "Notifications", &error)
            if let error { throw .badValue(path: file.path, key: "Notifications", reason: GLibError(consuming: error).message) }
            settings.notifications = value != 0
        }
        if g_key_file_has_key(keyFile, "Agent", "Listen", nil) != 0, let value = g_key_file_get_string(keyFile, "Agent", "Listen", nil) {
            settings.listen = String(cString: value)
            g_free(value)
        }
        return settings
    }
}

/// Why `agent.conf` was refused; each names the file (and the key).
public enum AgentSettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case malformed(path: String, reason: String)
    case badValue(path: String, key: String, reason: String)

    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .unreadable(let path, let reason): "cannot read \(shown(path)): \(reason)"
        case .malformed(let path, let reason): "\(shown(path)) is not a key file: \(reason)"
        case .badValue(let path, let key, let reason): "\(shown(path)): [Agent] \(key): \(reason)"
        }
    }
}
