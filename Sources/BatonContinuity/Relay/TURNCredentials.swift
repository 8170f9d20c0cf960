import Foundation

/// Time-limited TURN credentials in the form of the TURN REST API (coturn's
/// `use-auth-secret`): anyone holding the group's shared secret can make them, the TURN server
/// checks them with the same secret, and they stop working at `expires`.
public struct TURNCredentials: Sendable, Equatable {
    /// `"<expiry in Unix seconds>:<device identifier>"`.
    public var username: String
    /// base64(HMAC-SHA1(shared secret, username)).
    public var password: String
    /// When the TURN server stops accepting them.
    public var expires: Date

    /// Credentials with these fields (see `RelaySettings.turnCredentials(for:validFor:now:)`).
    public init(username: String, password: String, expires: Date) {
        self.username = username
        self.password = password
        self.expires = expires
    }
}
