import BatonLoop
import Crypto
import Foundation
import X509

/// What the group authority gives a device whose key was made on the device itself (pairing):
/// its device certificate, the group's certificate (the trust anchor), the group's signed list
/// naming it, and the group's discovery key. It holds no private key: the device adds its own
/// (`identity(privateKey:expectedName:)`) and writes the identity beside it.
///
/// On the wire it is a GVariant `(ayayayay)`: the certificate's DER, the group certificate's
/// DER, the signed list's bytes, and the discovery key's 32 bytes (empty for none).
public struct DeviceGrant: Sendable {
    /// The device certificate, for the public key the device proved it holds.
    public let certificate: Certificate
    /// The group's CA certificate.
    public let groupCertificate: Certificate
    /// The group's signed list (revocations and names), naming the device.
    public let revocationData: Data
    /// The group's current discovery key (nil for a group without one).
    let discoveryKey: DiscoveryKey?

    init(certificate: Certificate, groupCertificate: Certificate, revocationData: Data, discoveryKey: DiscoveryKey?) {
        self.certificate = certificate
        self.groupCertificate = groupCertificate
        self.revocationData = revocationData
        self.discoveryKey = discoveryKey
    }

    /// The GVariant type of a serialised grant.
    static let variantType = "(ayayayay)"

    /// The grant as sent: GVariant `(ayayayay)` in normal form.
    public func serialized() throws -> Data {
        try Variant.tuple([
            .bytes(Data(try certificate.derBytes())), .bytes(Data(try groupCertificate.derBytes())),
            .bytes(revocationData), .bytes(discoveryKey?.bytes ?? Data()),
        ]).serialized()
    }

    /// Decodes a grant from untrusted bytes; anything but a well-formed `(ayayayay)` whose
    /// certificates parse is refused with `TrustError.grantRefused`. (Whether it fits the
    /// device's key and the group is `identity(privateKey:expectedName:)`'s check.)
    public init(serialized data: Data) throws {
        let fields: [Variant]
        do {
            guard case .tuple(let items) = try Variant(serialized: data, type: Self.variantType) else {
                throw TrustError.grantRefused(reason: "it is not a (ayayayay)")
            }
            fields = items
        } catch let error as TrustError { throw error } catch {
            throw TrustError.grantRefused(reason: "it is not a GVariant (ayayayay) in normal form (\(data.count) bytes)")
        }
        guard fields.count == 4, case .bytes(let certificate) = fields[0], case .bytes(let group) = fields[1],
              case .bytes(let list) = fields[2], case .bytes(let key) = fields[3] else {
            throw TrustError.grantRefused(reason: "its fields are not four byte arrays")
        }
        do {
            self.certificate = try Certificate(derEncoded: Array(certificate))
            self.groupCertificate = try Certificate(derEncoded: Array(group))
        } catch {
            throw TrustError.grantRefused(reason: "a certificate in it does not parse")
        }
        revocationData = list
        do {
            discoveryKey = key.isEmpty ? nil : try DiscoveryKey(bytes: key)
        } catch {
            throw TrustError.grantRefused(reason: "its discovery key is not 32 bytes (\(key.count))")
        }
    }

    /// The identity this grant makes with `privateKey`, the device's own key, after the checks
    /// `DeviceIdentity.load(from:)` makes of files: the certificate is for that key, signed by
    /// the group certificate, valid now, a device certificate (`deviceProfileDefect`); the list
    /// is signed by the group and names the certificate `expectedName`; the discovery key is
    /// the one the list commits to. Anything else is `TrustError.grantRefused`.
    public func identity(privateKey: P256.Signing.PrivateKey, expectedName: String, at time: Date = Date()) throws -> DeviceIdentity {
        guard Certificate.PublicKey(privateKey.publicKey) == certificate.publicKey else {
            throw TrustError.grantRefused(reason: "its certificate is not for this device's key")
        }
        guard certificate.issuer == groupCertificate.subject,
              groupCertificate.publicKey.isValidSignature(certificate.signature, for: certificate) else {
            throw TrustError.grantRefused(reason: "its certificate is not signed by its group certificate")
        }
        guard certificate.notValidBefore <= time, time <= certificate.notValidAfter else {
            throw TrustError.grantRefused(reason: "its certificate is not valid now")
        }
        if let defect = DeviceIdentity.deviceProfileDefect(of: certificate) {
            throw TrustError.grantRefused(reason: "its certificate is not a device certificate: \(defect)")
        }
        let identity: DeviceIdentity
        do {
            identity = try DeviceIdentity(certificate: certificate, privateKeyPEM: privateKey.pemRepresentation,
                                          groupCertificate: groupCertificate, revocationData: revocationData,
                                          discoveryKey: discoveryKey)
        } catch {
            throw TrustError.grantRefused(reason: "its list is not signed by its group certificate")
        }
        guard identity.revocations.deviceNames[identity.identifier] == expectedName else {
            throw TrustError.grantRefused(reason: "its list does not name this device '\(expectedName)'")
        }
        guard identity.discoveryKeyIsCurrent else {
            throw TrustError.grantRefused(reason: "its discovery key is not the one its list commits to")
        }
        return identity
    }
}
