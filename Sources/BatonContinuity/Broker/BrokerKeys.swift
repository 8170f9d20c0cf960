import Crypto
import Foundation

/// What signalling through a broker derives from one epoch of the group's discovery key
/// (`DiscoveryKey`): the key that names the devices' inbox topics and the key that seals every
/// message. Only the group's devices hold the discovery key, and it rotates with each
/// revocation, so a revoked device can neither find the inboxes nor read or seal a message
/// after the rotation. Both are HKDF-SHA256 of the discovery key with salt `baton broker`
/// (docs/PROTOCOL.md, 7.2).
struct BrokerKeys: Sendable {
    /// HMAC-SHA256 key naming inbox topics (info `inbox topic v1`).
    let topicKey: SymmetricKey
    /// ChaCha20-Poly1305 key sealing messages (info `envelope seal v1`).
    let sealKey: SymmetricKey

    init(_ discoveryKey: DiscoveryKey) {
        let salt = Data("baton broker".utf8)
        topicKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: discoveryKey.key, salt: salt,
                                          info: Data("inbox topic v1".utf8), outputByteCount: 32)
        sealKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: discoveryKey.key, salt: salt,
                                         info: Data("envelope seal v1".utf8), outputByteCount: 32)
    }

    /// The inbox topic of the device `deviceIdentifier` under this key: `baton/` and 32 hex
    /// digits (the first 16 bytes of HMAC(topic key, "inbox" ‖ 0 ‖ identifier)). It names
    /// neither the device nor the group to anyone without the key, and changes with each rotation.
    func inbox(of deviceIdentifier: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("inbox".utf8) + [0] + Data(deviceIdentifier.utf8), using: topicKey)
        return "baton/" + Data(mac).prefix(16).map { String(format: "%02x", $0) }.joined()
    }
}
