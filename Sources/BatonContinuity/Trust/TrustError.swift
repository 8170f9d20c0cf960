/// Why an identity, a group or a peer was refused. Each case names what was wrong.
public enum TrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A private key file readable by others than its owner.
    case keyFileTooOpen(path: String, mode: UInt16)
    case missingFile(path: String)
    case unreadable(path: String, reason: String)
    /// A device name must be 1–64 printable characters without `/`.
    case invalidDeviceName(String)
    case deviceExists(String)
    case noSuchDevice(String)
    case noGroup(directory: String)
    case groupExists(directory: String)
    case noIdentity(directory: String)
    /// The revocation list's signature does not verify against the group authority.
    case revocationListNotSigned(path: String)
    /// A revocation list older than the one already held.
    case revocationListOlder(have: UInt64, offered: UInt64)
    /// A peer certificate that is not one of the group's device certificates.
    case peerNotInGroup(reason: String)
    case peerRevoked(device: String)
    /// A discovery key that is not the one the revocation list held commits to.
    case discoveryKeyNotCommitted(sequence: UInt64)

    public var description: String {
        switch self {
        case .keyFileTooOpen(let path, let mode):
            "refusing \(path): mode \(String(mode, radix: 8)) lets others read the private key; run chmod 600 on it"
        case .missingFile(let path): "\(path) does not exist"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidDeviceName(let name): "'\(name)' is not a device name: use 1–64 printable characters, no '/'"
        case .deviceExists(let name): "a device named '\(name)' is already in the group"
        case .noSuchDevice(let name): "no device named '\(name)' in the group"
        case .noGroup(let dir): "no device group in \(dir); create one with `baton group create`"
        case .groupExists(let dir): "\(dir) already holds a device group"
        case .noIdentity(let dir): "no device identity in \(dir); add this device with `baton device add NAME --install`"
        case .revocationListNotSigned(let path): "\(path) is not signed by the group authority"
        case .revocationListOlder(let have, let offered): "revocation list \(offered) is older than the one held (\(have))"
        case .peerNotInGroup(let reason): "the peer is not a device of this group: \(reason)"
        case .peerRevoked(let device): "the peer '\(device)' has been revoked"
        case .discoveryKeyNotCommitted(let sequence): "the discovery key offered is not the one revocation list \(sequence) names"
        }
    }
}
