@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// A device listener of `authority`'s group behind a relay that passes its admission gate with
/// the group's discovery key (`GateRelay`), so that a foreign TLS client meets the listener's
/// TLS as a device's would; returns the relay and the server side's outcome.
@MainActor
private func listen(_ authority: GroupAuthority) throws -> (GateRelay, Outcome<SecureChannel>) {
    let laptop = try authority.issueDevice(named: "laptop-\(UUID().uuidString.prefix(4))")
    let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
    let key = try XCTUnwrap(laptop.discoveryKey)
    let relay = try GateRelay(to: listener.port) { AdmissionGate.answer(to: $0, key: key) }
    return (relay, Outcome { try await listener.accept() })
}

/// Security with a real client nobody on the team wrote: `openssl s_client`, offering the
/// baton/1 ALPN over TLS 1.3 through a relay that passes the admission gate for it (as an
/// insider holding the group's discovery key could), is refused by a device's listener unless
/// it holds a current device certificate of the group — and nothing is sent to it before that.
final class ForeignClientTests: TrustTestCase {
    /// Runs s_client against `port` with optional certificate and key files; returns its output.
    private func sClient(port: UInt16, certificate: String? = nil, key: String? = nil) -> Outcome<String> {
        var arguments = ["s_client", "-connect", "127.0.0.1:\(port)", "-alpn", "baton/1", "-tls1_3", "-ign_eof"]
        if let certificate, let key { arguments += ["-cert", certificate, "-key", key] }
        let sClientArguments = arguments
        return MainActor.assumeIsolated {
            Outcome {
                try await Task.detached {
                    let run = try runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), sClientArguments, timeout: 30)
                    return run.stdout + run.stderr
                }.value
            }
        }
    }

    private func refusal(_ outcome: Outcome<SecureChannel>) -> TransportError? {
        MainActor.assumeIsolated { outcome.error as? TransportError }
    }

    /// What a device of `authority`'s group says to s_client presenting `certificate` and `key`.
    private func refusalOfSClient(to authority: GroupAuthority, certificate: URL, key: URL) throws -> TransportError? {
        let (relay, server) = try MainActor.assumeIsolated { try listen(authority) }
        defer { relay.close() }
        let client = sClient(port: relay.port, certificate: certificate.path, key: key.path)
        MainActor.assumeIsolated { spin(until: { server.done && client.done }) }
        return refusal(server)
    }

    func testNoClientCertificateIsRefused() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (relay, server) = try MainActor.assumeIsolated { try listen(authority) }
        defer { relay.close() }
        let client = sClient(port: relay.port)
        MainActor.assumeIsolated { spin(until: { server.done && client.done }) }
        guard case .handshakeFailed? = refusal(server) else { return XCTFail("\(String(describing: refusal(server)))") }
    }

    func testASelfSignedCertificateIsRefused() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let dir = root.appendingPathComponent("mallory")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let make = try runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
            "-subj", "/CN=laptop", "-keyout", dir.appendingPathComponent("key.pem").path,
            "-out", dir.appendingPathComponent("cert.pem").path,
        ])
        XCTAssertEqual(make.status, 0, make.stderr)
        let answer = try refusalOfSClient(to: authority, certificate: dir.appendingPathComponent("cert.pem"),
                                          key: dir.appendingPathComponent("key.pem"))
        guard case .peerRejected(.peerNotInGroup)? = answer else { return XCTFail("\(String(describing: answer))") }
    }

    func testACertificateOfAnotherGroupIsRefused() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let eve = root.appendingPathComponent("eve-laptop")
        try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "laptop").write(to: eve)
        let answer = try refusalOfSClient(to: authority, certificate: eve.appendingPathComponent("certificate.pem"),
                                          key: eve.appendingPathComponent("key.pem"))
        guard case .peerRejected(.peerNotInGroup)? = answer else { return XCTFail("\(String(describing: answer))") }
    }

    func testARevokedDeviceIsRefusedOnTheNextConnection() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let phone = root.appendingPathComponent("phone")
        try authority.issueDevice(named: "phone").write(to: phone)
        try authority.revokeDevice(named: "phone")
        // The listening device is issued after the revocation, so it holds the new list.
        let answer = try refusalOfSClient(to: authority, certificate: phone.appendingPathComponent("certificate.pem"),
                                          key: phone.appendingPathComponent("key.pem"))
        guard case .peerRejected(.peerRevoked("phone"))? = answer else { return XCTFail("\(String(describing: answer))") }
    }

    func testACurrentDeviceIsAcceptedBySClientToo() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let phone = root.appendingPathComponent("phone")
        try authority.issueDevice(named: "phone").write(to: phone)
        let (relay, server) = try MainActor.assumeIsolated { try listen(authority) }
        defer { relay.close() }
        let client = sClient(port: relay.port, certificate: phone.appendingPathComponent("certificate.pem").path,
                             key: phone.appendingPathComponent("key.pem").path)
        MainActor.assumeIsolated { spin(until: { server.done }) }
        XCTAssertEqual(try MainActor.assumeIsolated { try server.get().peerIdentifier }, try DeviceIdentity.load(from: phone).identifier)
        MainActor.assumeIsolated {
            try? server.get().close()
            spin(until: { client.done })
        }
        let transcript = try MainActor.assumeIsolated { try client.get() }
        XCTAssertTrue(transcript.contains("ALPN protocol: baton/1"), transcript)
        XCTAssertTrue(transcript.contains("TLSv1.3"), transcript)
    }
}
