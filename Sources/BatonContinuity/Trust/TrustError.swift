/// Why an identity, a group or a peer was refused. Each case names the file or the thing that
/// was wrong, and its description says what is wrong in words.
public enum TrustError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A private key file readable by others than its owner.
    case keyFileTooOpen(path: String, mode: UInt16)
    /// A file the identity or group needs is not there.
    case missingFile(path: String)
    /// The file or folder exists but cannot be read: `reason` says why (from the system).
    case unreadable(path: String, reason: String)
    /// The file was read but does not hold what it should: `problem` says what it holds instead.
    case malformedFile(path: String, problem: String)
    /// A private key of another kind than the group's (ECDSA P-256); `found` names it.
    case wrongKeyType(path: String, found: String)
    /// A file larger than any file of an identity or a group can be.
    case fileTooLarge(path: String, size: Int, limit: Int)
    /// A file of the identity or the group could not be written; nothing was changed.
    case cannotWrite(path: String, reason: String)
    /// The folder already holds a device identity, which is never overwritten unless asked to
    /// (and then moved aside, not deleted). `path` is the first of its files found.
    case identityExists(path: String)
    /// A device name must be 1–64 characters that show as themselves (`PrintableText`), without
    /// `/` and without leading or trailing spaces.
    case invalidDeviceName(String)
    /// A group name follows the rules of a device name.
    case invalidGroupName(String)
    /// The group already issued a device of this name.
    case deviceExists(String)
    /// The group has issued no device of this name.
    case noSuchDevice(String)
    /// The folder holds no group authority (`baton group create` makes one).
    case noGroup(directory: String)
    /// The folder holds no group authority, but this device is a member of `group`, which is
    /// administered on another machine (the one where `baton group create` made it).
    case authorityElsewhere(directory: String, group: String)
    /// The folder already holds a group authority, which is never overwritten.
    case groupExists(directory: String)
    /// The folder holds no device identity (`baton device add --install` makes one).
    case noIdentity(directory: String)
    /// The revocation list's signature does not verify against the group authority.
    case revocationListNotSigned(path: String)
    /// A list signed by the group whose relay settings break the caps (`RelaySettings.validate()`):
    /// the whole list is refused and nothing held changes.
    case relaySettingsRefused(RelaySettingsError)
    /// A revocation list older than the one already held.
    case revocationListOlder(have: UInt64, offered: UInt64)
    /// A peer certificate that is not one of the group's device certificates.
    case peerNotInGroup(reason: String)
    /// A peer whose certificate the group has revoked; `device` names it.
    case peerRevoked(device: String)
    /// A discovery key that is not the one the revocation list held commits to.
    case discoveryKeyNotCommitted(sequence: UInt64)
    /// What the group authority granted a paired device does not make an identity with this
    /// device's own key: `reason` says what is wrong with it. Nothing was written.
    case grantRefused(reason: String)

    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .keyFileTooOpen(let path, let mode):
            "refusing \(shown(path)): mode \(String(mode, radix: 8)) lets others read the private key; run chmod 600 on it"
        case .missingFile(let path): "\(shown(path)) does not exist"
        case .unreadable(let path, let reason): "cannot read \(shown(path)): \(reason)"
        case .malformedFile(let path, let problem): "\(shown(path)) is damaged or not what it should be: \(problem)"
        case .wrongKeyType(let path, let found):
            "\(shown(path)) holds \(found); the group's keys are ECDSA P-256 keys"
        case .fileTooLarge(let path, let size, let limit):
            "refusing \(shown(path)): it is \(size) bytes, more than the \(limit) bytes such a file can be"
        case .cannotWrite(let path, let reason): "cannot write \(shown(path)): \(reason); nothing was changed"
        case .identityExists(let path):
            "\(shown(path)) already holds a device identity: refusing to overwrite it (with --force it is moved aside, never deleted)"
        case .invalidDeviceName(let name):
            "'\(shown(name))' is not a device name: use 1–64 characters that print as themselves (no control, format or bidirectional characters), no '/', no leading or trailing space"
        case .invalidGroupName(let name):
            "'\(shown(name))' is not a group name: use 1–64 characters that print as themselves (no control, format or bidirectional characters), no '/', no leading or trailing space"
        case .deviceExists(let name): "a device named '\(shown(name))' is already in the group"
        case .noSuchDevice(let name): "no device named '\(shown(name))' in the group"
        case .noGroup(let dir): "no device group in \(shown(dir)); create one with `baton group create`"
        case .authorityElsewhere(let dir, let group):
            "no group authority in \(shown(dir)): this device is a member of group '\(shown(group))', whose authority is on the machine that administers it; run this command there"
        case .groupExists(let dir): "\(shown(dir)) already holds a device group"
        case .noIdentity(let dir): "no device identity in \(shown(dir)); add this device with `baton device add NAME --install`"
        case .revocationListNotSigned(let path): "\(shown(path)) is not a revocation list signed by the group authority"
        case .relaySettingsRefused(let reason): "refusing the group's list: its relay settings are refused: \(reason)"
        case .revocationListOlder(let have, let offered): "revocation list \(offered) is older than the one held (\(have))"
        case .peerNotInGroup(let reason): "the peer is not a device of this group: \(shown(reason))"
        case .peerRevoked(let device): "the peer '\(shown(device))' has been revoked"
        case .discoveryKeyNotCommitted(let sequence): "the discovery key offered is not the one revocation list \(sequence) names"
        case .grantRefused(let reason): "the identity granted is refused: \(shown(reason)); nothing was written"
        }
    }
}
