import Crypto
import Foundation

/// The group's shared secret for discovery: it blinds the token each device puts in its
/// DNS-SD TXT record, so the group's devices recognise each other on the network while an
/// onlooker sees only random-looking tokens that change with every rotation.
///
/// Derived (HKDF-SHA256) from the group authority's private key when a device is issued, and
/// written beside the device's identity as `discovery.key` (mode 0600).
public struct DiscoveryKey: Sendable, Equatable {
    let key: SymmetricKey

    /// Bytes in a token's salt and in its truncated MAC.
    static let saltSize = 8
    static let macSize = 8

    init(bytes: Data) throws {
        guard bytes.count == 32 else { throw TrustError.unreadable(path: "discovery.key", reason: "it must hold 32 bytes, not \(bytes.count)") }
        key = SymmetricKey(data: bytes)
    }

    init(derivedFrom authorityKey: P256.Signing.PrivateKey) {
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: authorityKey.rawRepresentation),
                                     salt: Data("baton discovery".utf8), info: Data("group token key v1".utf8),
                                     outputByteCount: 32)
    }

    var bytes: Data { key.withUnsafeBytes { Data($0) } }

    public static func == (a: DiscoveryKey, b: DiscoveryKey) -> Bool { a.bytes == b.bytes }

    /// A fresh token: a random salt and the MAC of that salt under the key, in hex (32 digits).
    /// Two tokens of one device cannot be linked without the key.
    public func freshToken() -> String {
        var salt = [UInt8](repeating: 0, count: Self.saltSize)
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255) }
        return Self.hex(salt) + Self.hex(mac(salt))
    }

    /// True if `token` was made with this key (compared in constant time).
    public func recognises(_ token: String) -> Bool {
        guard let bytes = Self.bytes(hex: token), bytes.count == Self.saltSize + Self.macSize else { return false }
        let expected = mac(Array(bytes.prefix(Self.saltSize)))
        return zip(expected, bytes.suffix(Self.macSize)).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func mac(_ salt: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Data("baton/1 group token".utf8) + salt, using: key).prefix(Self.macSize))
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            result.append(high << 4 | low)
        }
        return result
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
