import BatonTestSupport
import Crypto
import Foundation
import SwiftASN1
import X509

/// A real mosquitto on loopback for the broker tests, configured as the group's broker should
/// be: TLS 1.3 only, clients must present a certificate the group's CA signed
/// (`require_certificate`, `use_identity_as_username`), no anonymous clients. Its own server
/// certificate comes from a test CA made here (for 127.0.0.1). It is a `RunningProcess`: it ends
/// with `stop()`, or when the broker is released, or with the test process, even on failure.
final class MosquittoBroker: @unchecked Sendable {
    let folder: URL
    let port: UInt16
    /// The PEM file of the CA that issued the broker's certificate (the clients' `brokerAuthority`).
    let authorityFile: URL
    private let configFile: URL
    private var process: RunningProcess?

    /// Writes the broker's certificate, key and configuration into `folder` (admitting clients
    /// of the CA in `clientAuthority`, a PEM file) for `port`; `start()` runs it.
    init(folder: URL, clientAuthority: URL, port: UInt16) throws {
        self.folder = folder
        self.port = port
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let now = Date()
        let caKey = P256.Signing.PrivateKey(), serverKey = P256.Signing.PrivateKey()
        let caName = try DistinguishedName { CommonName("Test broker CA") }
        let ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(86_400),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            }, issuerPrivateKey: .init(caKey))
        let server = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(86_400),
            issuer: caName, subject: try DistinguishedName { CommonName("127.0.0.1") }, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                BasicConstraints.notCertificateAuthority
                KeyUsage(digitalSignature: true)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])), .dnsName("localhost")])
            }, issuerPrivateKey: .init(caKey))
        authorityFile = folder.appendingPathComponent("broker-ca.pem")
        try Data(ca.serializeAsPEM().pemString.utf8).write(to: authorityFile)
        let certificateFile = folder.appendingPathComponent("broker.pem"), keyFile = folder.appendingPathComponent("broker.key")
        try Data(server.serializeAsPEM().pemString.utf8).write(to: certificateFile)
        try serverKey.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile.path, 0o600)
        configFile = folder.appendingPathComponent("mosquitto.conf")
        // mosquitto started by root runs as `user` (else as the user "mosquitto", who cannot read
        // the test's files): the test's own user.
        try """
        user \(String(cString: getpwuid(getuid())!.pointee.pw_name))
        per_listener_settings false
        allow_anonymous false
        persistence false
        log_dest stderr
        log_type error
        log_type warning
        log_type notice
        log_type information
        listener \(port) 127.0.0.1
        cafile \(clientAuthority.path)
        certfile \(certificateFile.path)
        keyfile \(keyFile.path)
        require_certificate true
        use_identity_as_username true
        tls_version tlsv1.3

        """.write(to: configFile, atomically: true, encoding: .utf8)
    }

    /// Starts mosquitto and waits (bounded) until it says it runs, its listener open.
    func start() throws {
        let process = try RunningProcess(executable: URL(fileURLWithPath: "/usr/sbin/mosquitto"), ["-c", configFile.path])
        self.process = process
        guard process.waitForLine(containing: " running", timeout: 30) != nil else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "mosquitto did not start: \(process.output)"])
        }
    }

    /// Stops mosquitto (SIGTERM, then SIGKILL if it lingers) and waits for it to end.
    func stop() {
        process?.terminate()
        process?.waitForExit(timeout: 10)
        process = nil
    }

    /// What mosquitto logged.
    var output: String { process?.output ?? "" }

    deinit { stop() }

    /// A loopback port nothing listens on now (`FreePort.tcp()`).
    static func freePort() throws -> UInt16 { try FreePort.tcp() }
}
