import Crypto
import Foundation

/// The group's shared secret for discovery: it blinds the token each device puts in its
/// DNS-SD TXT record, so the group's devices recognise each other on the network while an
/// onlooker sees only random-looking tokens that change with every rotation.
///
/// Derived (HKDF-SHA256) from the group authority's private key and the key's *epoch*, the
/// sequence number of the revocation list it goes with: epoch 0 when the group is created,
/// and a new key with each revocation, so a revoked device no longer recognises the group's
/// tokens. A signed revocation list commits to its epoch's key (`commitment`); devices hand
/// the new key to each other over their authenticated links and take it only if it matches
/// the list. Written beside the device's identity as `discovery.key` (mode 0600).
///
/// A token is bound to the address and port it is published for: its MAC covers both, so a
/// token replayed from another address or port does not verify.
public struct DiscoveryKey: Sendable, Equatable {
    let key: SymmetricKey

    /// Bytes in a token's salt and in each truncated MAC.
    static let saltSize = 8
    static let macSize = 8
    /// At most this many addresses one token covers (an interface with several IPv4 addresses).
    static let maxAddresses = 4

    init(bytes: Data) throws {
        guard bytes.count == 32 else { throw TrustError.unreadable(path: "discovery.key", reason: "it must hold 32 bytes, not \(bytes.count)") }
        key = SymmetricKey(data: bytes)
    }

    /// The key of `epoch` (the revocation list's sequence number) for the group of `authorityKey`.
    /// Epoch 0 is the key devices issued before rotation existed hold.
    init(derivedFrom authorityKey: P256.Signing.PrivateKey, epoch: UInt64 = 0) {
        let info = epoch == 0 ? Data("group token key v1".utf8) : Data("group token key epoch \(epoch)".utf8)
        key = HKDF<SHA256>.deriveKey(inputKeyMaterial: SymmetricKey(data: authorityKey.rawRepresentation),
                                     salt: Data("baton discovery".utf8), info: info, outputByteCount: 32)
    }

    /// SHA-256 of the key's bytes: what a signed revocation list carries, so a device can tell
    /// the key a peer hands it is the group's current one without the list revealing it.
    var commitment: Data { Data(SHA256.hash(data: bytes)) }

    var bytes: Data { key.withUnsafeBytes { Data($0) } }

    public static func == (a: DiscoveryKey, b: DiscoveryKey) -> Bool { a.bytes == b.bytes }

    /// A fresh token for a service published at `port` on `addresses` (the IPv4 addresses, in
    /// text, of the interface it is published on; at most `maxAddresses`): a random salt and, for
    /// each address, the MAC of salt, port and address under the key, in hex. Two tokens of one
    /// device cannot be linked without the key.
    public func freshToken(port: UInt16, addresses: [String]) -> String {
        var salt = [UInt8](repeating: 0, count: Self.saltSize)
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255) }
        return Self.hex(salt) + addresses.prefix(Self.maxAddresses).map { Self.hex(mac(salt, port: port, address: $0)) }.joined()
    }

    /// True if `token` was made with this key for a service at `address` and `port`, as the
    /// browser resolved it (compared in constant time).
    public func recognises(_ token: String, port: UInt16, address: String) -> Bool {
        guard let bytes = Self.bytes(hex: token), bytes.count > Self.saltSize,
              (bytes.count - Self.saltSize) % Self.macSize == 0,
              (bytes.count - Self.saltSize) / Self.macSize <= Self.maxAddresses else { return false }
        let expected = mac(Array(bytes.prefix(Self.saltSize)), port: port, address: address)
        var matched = false
        for start in stride(from: Self.saltSize, to: bytes.count, by: Self.macSize) {
            let given = bytes[start..<(start + Self.macSize)]
            if zip(expected, given).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0 { matched = true }
        }
        return matched
    }

    private func mac(_ salt: [UInt8], port: UInt16, address: String) -> [UInt8] {
        let bound = Data("baton/1 group token".utf8) + salt + [UInt8(port >> 8), UInt8(port & 0xff)] + Data(address.utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: bound, using: key).prefix(Self.macSize))
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
