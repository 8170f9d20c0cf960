import Foundation

/// The identifier a certificate of the group carries as its only subject field (its common
/// name): 128 random bits in lowercase hex, made when the certificate is issued. It names
/// nothing — not the user, the device or the group — so a client that connects without a
/// certificate learns no name from the handshake; the names travel inside the authenticated
/// link, in the group's signed list (`RevocationList.deviceNames`, `groupName`).
///
/// A certificate issued before identifiers were opaque carries the device's (or group's) name
/// in that field instead; it is still the identifier, and shown as it is.
public enum OpaqueIdentifier {
    /// Random bytes in an identifier.
    static let byteCount = 16

    /// A new random identifier: 32 lowercase hex digits.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<byteCount).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// True if `identifier` has the form `random()` makes (and so names nothing).
    public static func isOpaque(_ identifier: String) -> Bool {
        identifier.utf8.count == byteCount * 2
            && identifier.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// What is shown for a device whose name the list held does not give: `device ` and the
    /// identifier's first 8 hex digits for an opaque one; an older certificate's identifier
    /// (the name it was issued with) as it is if it could have been issued
    /// (`GroupAuthority.isAcceptableName`), else escaped (`PrintableText.escaped`), so no
    /// control or bidirectional character of a certificate reaches what apps show.
    public static func shortForm(_ identifier: String) -> String {
        if isOpaque(identifier) { return "device \(identifier.prefix(8))" }
        return GroupAuthority.isAcceptableName(identifier) ? identifier : PrintableText.escaped(identifier)
    }
}
