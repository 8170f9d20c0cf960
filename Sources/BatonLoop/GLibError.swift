import CGLib

/// A `GError` from GLib or GIO, kept as a Swift error: its domain, code and message, and — for
/// an error a D-Bus peer answered with — the D-Bus error name. Ask it typed questions
/// (`isIOError(_:)`, `remoteDBusErrorName`), never by matching its message.
public struct GLibError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The error's domain, as GLib names its quark (`g-io-error-quark`, `g-tls-error-quark`, …).
    public let domain: String
    /// The error's code within its domain (a `GIOErrorEnum` value for GIO's domain).
    public let code: Int32
    /// The message, without GDBus's `GDBus.Error:NAME: ` prefix for a remote D-Bus error.
    public let message: String
    /// The D-Bus error name a peer answered a call with (`g_dbus_error_get_remote_error`),
    /// e.g. `org.baton.Error.NotCurrent`; nil for any other error.
    public let remoteDBusErrorName: String?

    /// An error with these parts, as if GLib had reported it (for errors Baton makes, and tests).
    public init(domain: String, code: Int32, message: String, remoteDBusErrorName: String? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.remoteDBusErrorName = remoteDBusErrorName
    }

    /// Takes ownership of `error` and frees it.
    public init(consuming error: UnsafeMutablePointer<GError>) {
        // GDBus makes a peer's error reply (a name it has no mapping for) G_IO_ERROR_DBUS_ERROR;
        // g_dbus_error_is_remote_error alone only looks at the message's prefix.
        if error.pointee.domain == g_io_error_quark(), error.pointee.code == gint(G_IO_ERROR_DBUS_ERROR.rawValue),
           g_dbus_error_is_remote_error(error) != 0, let name = g_dbus_error_get_remote_error(error) {
            remoteDBusErrorName = String(cString: name)
            g_free(name)
            g_dbus_error_strip_remote_error(error)
        } else {
            remoteDBusErrorName = nil
        }
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        code = error.pointee.code
        message = String(cString: error.pointee.message)
        g_error_free(error)
    }

    /// True for an error of GIO's `G_IO_ERROR` domain (`g_io_error_quark()`) with `ioCode`.
    public func isIOError(_ ioCode: GIOErrorEnum) -> Bool {
        g_quark_try_string(domain) == g_io_error_quark() && code == Int32(ioCode.rawValue)
    }

    /// True for GIO's `G_IO_ERROR_CANCELLED`.
    public var isCancellation: Bool { isIOError(G_IO_ERROR_CANCELLED) }

    public var description: String {
        if let remoteDBusErrorName { return "\(remoteDBusErrorName): \(message)" }
        return "\(domain) error \(code): \(message)"
    }
}
