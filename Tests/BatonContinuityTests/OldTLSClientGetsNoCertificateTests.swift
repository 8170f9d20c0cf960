@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 26: a client that offers TLS 1.2 or lower gets no certificate. The listener reads the
/// ClientHello's `supported_versions` before the handshake starts and closes the connection
/// unless TLS 1.3 is offered, so `openssl s_client -tls1_2` (a real client nobody on the team
/// wrote) meets a closed connection, while `-tls1_3` still gets the server's certificate.
final class OldTLSClientGetsNoCertificateTests: ProcessTestCase {
    /// `openssl s_client` against 127.0.0.1:`port` with `version` (`-tls1_2`, `-tls1_3`) and
    /// `alpn`; its whole output, once it ended (standard input is empty: it ends after the handshake).
    private static func sClient(port: UInt16, _ version: String, alpn: String) throws -> String {
        let run = try runProcess(URL(fileURLWithPath: "/usr/bin/openssl"),
                                 ["s_client", "-connect", "127.0.0.1:\(port)", version, "-alpn", alpn], timeout: 30)
        return run.stdout + run.stderr
    }

    private func assertNoCertificate(_ transcript: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(transcript.contains("no peer certificate available"), transcript, file: file, line: line)
        XCTAssertNil(transcript.range(of: "BEGIN CERTIFICATE"), transcript, file: file, line: line)
        XCTAssertNil(transcript.range(of: "Server certificate"), transcript, file: file, line: line)
    }

    /// A real pairing window (`baton pair --accept`): it has no admission gate, so the
    /// version check is all that stands before its certificate.
    func testAPairingWindowSendsNoCertificateToATLS12Client() throws {
        let admin = config("admin").url.path
        for command in [["group", "create", "Ada"], ["device", "add", "A", "--install"]] {
            let result = try runProduct("baton", command + ["--config", admin], timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let window = try RunningProcess(product: "baton", ["pair", "--accept", "--listen", "127.0.0.1:0", "--config", admin])
        processes.append(window)
        let port = try XCTUnwrap(window.pairingWindowPort(), window.output)

        assertNoCertificate(try Self.sClient(port: port, "-tls1_2", alpn: PairingChannel.alpn))
        assertNoCertificate(try Self.sClient(port: port, "-tls1_1", alpn: PairingChannel.alpn))
        // TLS 1.3 is still served: the window's certificate reaches the client (which then has
        // none of its own to give, so the pairing goes no further).
        let modern = try Self.sClient(port: port, "-tls1_3", alpn: PairingChannel.alpn)
        XCTAssertNotNil(modern.range(of: "Server certificate"), modern)
        XCTAssertNotNil(modern.range(of: "TLSv1.3"), modern)
        XCTAssertTrue(window.isRunning, window.output)
        XCTAssertNil(window.output.range(of: "attempt"), "no attempt used: \(window.output)")
    }

    /// A device's listener, reached through a relay that passes its admission gate (as an
    /// insider holding the discovery key could): a TLS 1.2 client is refused before TLS, the
    /// refusal saying why, and gets no certificate; a TLS 1.3 client gets one.
    func testADeviceListenerSendsNoCertificateToATLS12ClientPastTheGate() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop")
        let (listener, relay) = try MainActor.assumeIsolated { () throws -> (SecureListener, GateRelay) in
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            let key = try XCTUnwrap(laptop.discoveryKey)
            return (listener, try GateRelay(to: listener.port) { AdmissionGate.answer(to: $0, key: key) })
        }
        defer {
            relay.close()
            MainActor.assumeIsolated { listener.close() }
        }
        let port = relay.port
        for (version, shown) in [("-tls1_2", false), ("-tls1_3", true)] {
            let server = MainActor.assumeIsolated { Outcome { try await listener.accept() } }
            let client = MainActor.assumeIsolated {
                Outcome { try await Task.detached { try Self.sClient(port: port, version, alpn: SecureChannel.alpn) }.value }
            }
            MainActor.assumeIsolated { spin(until: { server.done && client.done }) }
            let transcript = try MainActor.assumeIsolated { try client.get() }
            if shown {
                XCTAssertNotNil(transcript.range(of: "Server certificate"), transcript)
            } else {
                assertNoCertificate(transcript)
                let refusal = MainActor.assumeIsolated { server.error as? TransportError }
                guard case .tls13NotOffered? = refusal else { return XCTFail("\(String(describing: refusal))") }
                XCTAssertEqual(DiagnosticEvent.RefusalReason(TransportError.tls13NotOffered), .tlsVersion)
            }
        }
    }
}
