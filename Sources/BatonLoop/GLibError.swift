import CGLib

/// A `GError` from GLib or GIO, kept as a Swift error: its domain, code and message.
public struct GLibError: Error, Sendable, Equatable, CustomStringConvertible {
    public let domain: String
    public let code: Int32
    public let message: String

    public init(domain: String, code: Int32, message: String) {
        self.domain = domain
        self.code = code
        self.message = message
    }

    /// Takes ownership of `error` and frees it.
    public init(consuming error: UnsafeMutablePointer<GError>) {
        domain = String(cString: g_quark_to_string(error.pointee.domain))
        code = error.pointee.code
        message = String(cString: error.pointee.message)
        g_error_free(error)
    }

    /// True for GIO's `G_IO_ERROR_CANCELLED`.
    public var isCancellation: Bool {
        domain == String(cString: g_quark_to_string(g_io_error_quark())) && code == G_IO_ERROR_CANCELLED.rawValue
    }

    public var description: String { "\(domain) error \(code): \(message)" }
}
