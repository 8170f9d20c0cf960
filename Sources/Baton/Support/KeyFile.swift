import BatonLoop
import CGLib
import Foundation

/// A GLib key file (`GKeyFile`: desktop entries, the agent's `agent.conf`), read whole from a
/// file of at most `limit` bytes (checked before a byte is read, `FileContents`) and parsed by
/// GLib. Values are read typed: a key of the wrong kind is an error naming it, never a default.
package final class KeyFile {
    /// Why a key file or one of its values was not read. Callers turn it into their own error
    /// naming the file.
    package enum Failure: Error, Equatable {
        case read(FileContents.Failure)
        /// Not a key file: GLib's reason.
        case malformed(String)
        /// `key` holds something other than its kind: GLib's reason.
        case badValue(key: String, reason: String)
    }

    private let keys: OpaquePointer

    package init(contentsOf path: String, limit: Int) throws(Failure) {
        let data: Data
        do { data = try FileContents.read(path, limit: limit) } catch { throw .read(error) }
        keys = g_key_file_new()!
        var error: UnsafeMutablePointer<GError>?
        let loaded = data.withUnsafeBytes { bytes in
            g_key_file_load_from_data(keys, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(bytes.count),
                                      G_KEY_FILE_NONE, &error)
        }
        guard loaded != 0 else { throw .malformed(GLibError(consuming: error!).message) }
    }

    deinit { g_key_file_free(keys) }

    package func hasGroup(_ group: String) -> Bool { g_key_file_has_group(keys, group) != 0 }

    /// The value of `key` in `group` as it is written (escapes undone), or nil without it.
    package func string(_ group: String, _ key: String) -> String? {
        guard let value = g_key_file_get_string(keys, group, key, nil) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// The value of `key` for the current locale (`Name[fr]=…`), or nil without it.
    package func localeString(_ group: String, _ key: String) -> String? {
        guard let value = g_key_file_get_locale_string(keys, group, key, nil, nil) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// The boolean `key` in `group` (`true`/`false`), nil without it; `badValue` for anything else.
    package func boolean(_ group: String, _ key: String) throws(Failure) -> Bool? {
        guard g_key_file_has_key(keys, group, key, nil) != 0 else { return nil }
        var error: UnsafeMutablePointer<GError>?
        let value = g_key_file_get_boolean(keys, group, key, &error)
        if let error { throw .badValue(key: key, reason: GLibError(consuming: error).message) }
        return value != 0
    }
}
