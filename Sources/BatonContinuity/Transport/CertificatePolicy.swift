import CGLib
import Crypto
import X509

/// Which certificate a TLS channel (`SecureChannel`) presents, which peer certificate it takes,
/// and, for a `TLSListener`, the ALPN ids it offers and whether it gates connections.
enum CertificatePolicy: Sendable {
    /// A device of the group (links, which carry continuation streams too): presents
    /// `credential`, takes only a current device of the group (`DeviceIdentity.verifyPeer`,
    /// with `identity`'s revocation list), behind the admission gate with the group's discovery
    /// key; a listener offers ALPN `baton/1`.
    case groupMember(identity: DeviceIdentity, credential: TLSCredential)
    /// A pairing connection: presents a throwaway certificate, takes any certificate holding a
    /// P-256 key (nothing is trusted yet: the code the people compare decides, and it names
    /// that key); no gate, as the newcomer holds no group secret yet; ALPN `baton-pair/1`.
    case pairingNewcomer(PairingCertificate)

    /// The certificate (and key) this side presents.
    var certificate: UnsafeMutablePointer<GTlsCertificate> {
        switch self {
        case .groupMember(_, let credential): credential.certificate
        case .pairingNewcomer(let own): own.credential.certificate
        }
    }

    /// The ALPN ids a listener of this policy offers.
    var serverProtocols: ProtocolList {
        switch self {
        case .groupMember: memberServerProtocols
        case .pairingNewcomer: pairingProtocols
        }
    }

    /// The same policy checking peers against `identity` (a newer revocation list, another
    /// discovery key); a pairing policy stays as it is.
    func checking(_ identity: DeviceIdentity?) -> CertificatePolicy {
        guard let identity, case .groupMember(_, let credential) = self else { return self }
        return .groupMember(identity: identity, credential: credential)
    }

    /// Who `peer` is under this policy, or why it is refused.
    func verify(_ peer: Certificate) throws(TrustError) -> VerifiedPeer {
        switch self {
        case .groupMember(let identity, _):
            return .member(identifier: try identity.verifyPeer(peer), serial: peer.serialHex)
        case .pairingNewcomer:
            guard let key = P256.Signing.PublicKey(peer.publicKey) else {
                throw .peerNotInGroup(reason: "the peer presented no P-256 certificate")
            }
            return .newcomer(key: key)
        }
    }
}

/// What the peer of a `SecureChannel` proved in its handshake, under the channel's policy.
enum VerifiedPeer: Sendable {
    /// A current device of the group: its certificate's common name and serial number (hex).
    case member(identifier: String, serial: String)
    /// A pairing peer: the P-256 key its certificate holds (the handshake proved it holds the
    /// private key).
    case newcomer(key: P256.Signing.PublicKey)
}

/// What a group member's listener offers: a device link.
private let memberServerProtocols = ProtocolList([SecureChannel.alpn])
/// The one ALPN id a pairing connection offers.
let pairingProtocols = ProtocolList([SecureChannel.pairingALPN])
