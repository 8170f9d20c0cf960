import Crypto
import SwiftASN1
import X509
import Foundation

extension GroupAuthority {
    /// The relay settings the group's current list carries, if the authority set any.
    public func relaySettings() throws -> RelaySettings? { try revocationList().relay }

    /// Writes `settings` into the group: checked first (`RelaySettings.validate()`), then a new
    /// signed list with the next sequence carrying them (with `version` one above the settings
    /// held, or 1), written as the group's list and into each of `deviceDirectories` that holds
    /// a list of this group (this machine's own device), all together or not at all, mode 0600.
    /// The other devices get the list over their links, as they get a revocation. Returns the
    /// settings as written.
    @discardableResult
    public func setRelaySettings(_ settings: RelaySettings, updating deviceDirectories: [URL] = []) throws -> RelaySettings {
        try settings.validate()
        var list = try revocationList()
        var written = settings
        written.version = (list.relay?.version ?? 0) + 1
        list.sequence += 1
        list.issued = Date()
        list.relay = written
        list.revokedDevices = Self.revokedDevices(in: try loadRoster(), names: list.deviceNames)  // carried from now on
        let files = FileTransaction()
        try stage(try list.signed(with: privateKey), in: files, updating: deviceDirectories)
        try files.commit()
        return written
    }

    /// The identifiers of the devices `roster` marks revoked, found by their names in `names`
    /// (the list's; names are unique in a group). A device issued before names moved into the
    /// list has none there and is left out (its certificate's serial is revoked all the same).
    static func revokedDevices(in roster: Roster, names: [String: String]) -> Set<String> {
        let revoked = Set(roster.devices.filter(\.revoked).map(\.name))
        return Set(names.filter { revoked.contains($0.value) }.keys)
    }
}

extension GroupAuthority {
    /// A certificate and key for the group's MQTT broker at `host`, issued by the group CA so
    /// that devices verify the broker with the trust anchor they hold: a new P-256 key; valid
    /// for 2 years; the host as its subject alternative name (a DNS name or an IP address) and
    /// its common name (a random identifier for a name over 64 characters); serverAuth alone. It can never pass for a device: a device certificate
    /// must carry both serverAuth and clientAuth (`DeviceIdentity.deviceProfileDefect`).
    /// Nothing is recorded in the group. Returns both as PEM.
    public func issueBrokerCertificate(host: String) throws -> (certificatePEM: String, keyPEM: String) {
        let host = try RelayHost.checked(host)
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let name: GeneralName
        if RelayHost.isIPAddress(host) {
            var bytes = [UInt8](repeating: 0, count: 16)
            let family = RelayHost.isIPv6(host) ? AF_INET6 : AF_INET
            _ = inet_pton(family, host, &bytes)
            name = .ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes.prefix(family == AF_INET6 ? 16 : 4))))
        } else {
            name = .dnsName(host)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(2 * 365 * 86_400),
            issuer: self.certificate.subject,
            subject: try DistinguishedName { CommonName(host.count <= 64 ? host : OpaqueIdentifier.random()) },  // X.520: at most 64
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([name])
            },
            issuerPrivateKey: .init(privateKey))
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }
}
