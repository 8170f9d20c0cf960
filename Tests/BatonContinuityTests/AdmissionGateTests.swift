@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 9, "Privacy": nothing a peer that is not of the group sees may stay the same across
/// rotations — and a device's certificate (its key, identifier and serial) stays for years. So a
/// listener sends it only to a peer that has passed the admission gate: proved, against a fresh
/// nonce, that it holds the group's current discovery key. A stranger gets 16 random bytes and a
/// closed socket; a recorded answer does not open another connection; a revoked device (which
/// holds only the key of its time) never sees an up-to-date device's certificate; and a device
/// that missed a rotation of the key is still reached, and catches up.
final class AdmissionGateTests: ProcessTestCase {
    /// `openssl s_client -showcerts` against `port`; its output.
    private func sClient(port: UInt16) -> Outcome<String> {
        MainActor.assumeIsolated {
            Outcome {
                try await Task.detached {
                    let run = try runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), [
                        "s_client", "-connect", "127.0.0.1:\(port)", "-alpn", "baton/1", "-tls1_3", "-showcerts",
                    ], timeout: 30)
                    return run.stdout + run.stderr
                }.value
            }
        }
    }

    /// A stranger — s_client straight at the port, or through a relay that answers the gate
    /// with another group's key — sees no certificate; raw sockets get 16 bytes, different on
    /// each connection, then the end: at once after a wrong answer, at the deadline when silent.
    func testAStrangerGetsSixteenRandomBytesAndAClosedSocket() throws {
        let laptop = try GroupAuthority.create(name: "Ada", in: config("admin")).issueDevice(named: "laptop")
        let strangerKey = try XCTUnwrap(GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "eve").discoveryKey)
        let (listener, relay) = try MainActor.assumeIsolated { () throws -> (SecureListener, GateRelay) in
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            listener.handshakeDeadline = .seconds(3)
            return (listener, try GateRelay(to: listener.port) { AdmissionGate.answer(to: $0, key: strangerKey) })
        }
        defer {
            relay.close()
            MainActor.assumeIsolated { listener.close() }
        }
        let refusals = MainActor.assumeIsolated { () -> Outcome<[TransportError]> in
            Outcome {
                var errors: [TransportError] = []
                while errors.count < 2 {
                    do throws(TransportError) { _ = try await listener.accept() } catch { errors.append(error) }
                }
                return errors
            }
        }
        for port in [listener.port, relay.port] {
            let seen = sClient(port: port)
            MainActor.assumeIsolated { spin(until: { seen.done }) }
            let transcript = try MainActor.assumeIsolated { try seen.get() }
            XCTAssertNil(transcript.range(of: "BEGIN CERTIFICATE"), "a stranger read the certificate: \(transcript)")
            XCTAssertNil(transcript.range(of: "ALPN protocol: baton/1"), transcript)
        }
        try MainActor.assumeIsolated {
            let wrong = try (0..<2).map { _ in try RawSocket(to: listener.port, gateKey: strangerKey) }
            let silent = try RawSocket(to: listener.port)
            let started = ContinuousClock.now
            XCTAssertTrue(MainLoop.run(until: { wrong.allSatisfy(\.ended) }, timeout: .seconds(30)))
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(2), "a wrong answer is refused at once, not at the deadline")
            for socket in wrong {
                XCTAssertEqual(socket.gateBytes.count, AdmissionGate.nonceSize, "the nonce, and no verdict")
                XCTAssertEqual(socket.received, 0)
            }
            XCTAssertNotEqual(wrong[0].gateBytes, wrong[1].gateBytes, "a fresh nonce for each connection")
            XCTAssertTrue(MainLoop.run(until: { silent.ended }, timeout: .seconds(30)))
            XCTAssertEqual(silent.received, AdmissionGate.nonceSize, "16 bytes, then the end, for a silent stranger")
            spin(until: { refusals.done })
            for refusal in try refusals.get() {
                guard case .notAdmitted = refusal else { return XCTFail("\(refusal)") }
            }
        }
    }

    /// An answer recorded from a device's admitted connection, sent again on a new connection,
    /// is refused: the listener's nonce is new.
    func testAReplayedAnswerIsRefused() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop")
        let key = try XCTUnwrap(laptop.discoveryKey)
        try MainActor.assumeIsolated {
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            defer { listener.close() }
            listener.handshakeDeadline = .seconds(60)
            let accepting = Outcome { try await listener.accept() }
            let recorded = try RawSocket(to: listener.port, gateKey: key)
            spin(until: { recorded.admitted || recorded.ended })
            XCTAssertTrue(recorded.admitted, "the real answer is admitted")
            let answer = Data(recorded.gateAnswer)
            let replay = try RawSocket(to: listener.port, gateAnswer: { _ in answer })
            XCTAssertTrue(MainLoop.run(until: { replay.ended }, timeout: .seconds(30)))
            XCTAssertFalse(replay.admitted)
            XCTAssertEqual(replay.gateAnswer, recorded.gateAnswer, "the recorded bytes were sent")
            spin(until: { accepting.done })
            guard case .notAdmitted? = accepting.error as? TransportError else {
                return XCTFail("\(String(describing: accepting.error))")
            }
            XCTAssertFalse(recorded.ended, "the admitted connection goes on to its TLS handshake")
        }
    }

    /// C is revoked: the group's key rotates. A, which has the new key, admits no one with the
    /// old one, so C (which has only that) never sees A's certificate: its dial ends at the
    /// gate, and s_client through a relay that answers with the old key reads nothing.
    func testARevokedDeviceCannotGetAnUpToDateDevicesCertificate() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let c = try authority.issueDevice(named: "C")
        let oldKey = try XCTUnwrap(c.discoveryKey)
        try authority.revokeDevice(named: "C")
        let a = try authority.issueDevice(named: "A")
        XCTAssertNotEqual(a.discoveryKey, oldKey)
        let (listener, relay) = try MainActor.assumeIsolated { () throws -> (SecureListener, GateRelay) in
            let listener = try SecureListener(identity: a, credential: try TLSCredential(identity: a))
            return (listener, try GateRelay(to: listener.port) { AdmissionGate.answer(to: $0, key: oldKey) })
        }
        defer {
            relay.close()
            MainActor.assumeIsolated { listener.close() }
        }
        try MainActor.assumeIsolated {
            let accepting = Outcome { try await listener.accept() }
            _ = accepting
            let credential = try TLSCredential(identity: c)
            let dial = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port, identity: c, credential: credential) }
            spin(until: { dial.done })
            guard case .admissionRefused? = dial.error as? TransportError else { return XCTFail("\(String(describing: dial.error))") }
        }
        let seen = sClient(port: relay.port)
        MainActor.assumeIsolated { spin(until: { seen.done }) }
        let transcript = try MainActor.assumeIsolated { try seen.get() }
        XCTAssertNil(transcript.range(of: "BEGIN CERTIFICATE"), "the revoked device's key got the certificate: \(transcript)")
    }

    /// The key rotates (C is revoked) while B is away: A gets the new list and key (with the old
    /// one kept as its previous), B keeps the old. A dials B: B refuses A's new key at the gate,
    /// A tries again with its previous one and links; B takes the new list and then the new key
    /// from A over the link, and keeps its old key as its previous.
    func testADeviceThatMissedARotationIsReachedAndCatchesUp() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var folders: [String: URL] = [:]
        for name in ["A", "B", "C"] {
            folders[name] = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folders[name]!)
        }
        let oldKey = try XCTUnwrap(DeviceIdentity.load(from: folders["B"]!).discoveryKey)
        try authority.revokeDevice(named: "C", updating: [folders["A"]!])
        let newKey = try authority.discoveryKey()
        let onA = try DeviceIdentity.load(from: folders["A"]!)
        XCTAssertEqual(onA.discoveryKey, newKey)
        XCTAssertEqual(onA.previousDiscoveryKey, oldKey, "the revocation kept A's old key as its previous")

        let b = try RunningProcess(product: "DeviceProbe", [folders["B"]!.path, "--ok"])
        processes.append(b)
        let line = try XCTUnwrap(b.listeningAddress(), b.output).description
        let a = try RunningProcess(product: "DeviceProbe", [folders["A"]!.path, "--ok", "--peer", line])
        processes.append(a)
        // Lists 1–3 named A, B and C as each was added; list 4 revokes C.
        XCTAssertTrue(b.waitFor(.discoveryKeyAdopted(sequence: 4, from: "A")), b.output + a.output)
        let onB = try DeviceIdentity.load(from: folders["B"]!)
        XCTAssertEqual(onB.revocations.sequence, 4)
        XCTAssertEqual(onB.discoveryKey, newKey)
        XCTAssertEqual(onB.previousDiscoveryKey, oldKey)
        XCTAssertEqual(mode(folders["B"]!.appendingPathComponent("discovery.key.previous")), 0o600)
        a.send("continue 5")
        XCTAssertTrue(a.waitForContinued(), a.output)
    }

    /// An identity without a discovery key (issued before discovery existed) neither asks nor
    /// answers the gate: two such devices link as before; a device with a key admits no such one.
    func testAnIdentityWithoutADiscoveryKeyNeitherAsksNorAnswers() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        func legacy(_ name: String) throws -> DeviceIdentity {
            let issued = try authority.issueDevice(named: name)
            return try DeviceIdentity(certificate: issued.certificate, privateKeyPEM: issued.privateKeyPEM,
                                      groupCertificate: issued.groupCertificate, revocationData: issued.revocationData,
                                      discoveryKey: nil)
        }
        let oldLaptop = try legacy("old-laptop"), oldPhone = try legacy("old-phone")
        let laptop = try authority.issueDevice(named: "laptop")
        try MainActor.assumeIsolated {
            let phoneCredential = try TLSCredential(identity: oldPhone)
            let old = try SecureListener(identity: oldLaptop, credential: try TLSCredential(identity: oldLaptop))
            defer { old.close() }
            let accepted = Outcome { try await old.accept() }
            let dialed = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: old.port, identity: oldPhone,
                                                                   credential: phoneCredential) }
            spin(until: { accepted.done && dialed.done })
            XCTAssertEqual(try dialed.get().peerIdentifier, oldLaptop.identifier)
            XCTAssertEqual(try accepted.get().peerIdentifier, oldPhone.identifier)

            let gated = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            defer { gated.close() }
            let refused = Outcome { try await gated.accept() }
            let refusedDial = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: gated.port, identity: oldPhone,
                                                                        credential: phoneCredential) }
            spin(until: { refused.done && refusedDial.done })
            guard case .notAdmitted? = refused.error as? TransportError else { return XCTFail("\(String(describing: refused.error))") }
            XCTAssertNotNil(refusedDial.error)

            // What the gate costs a dial: one more round trip and an HMAC (printed, not asserted).
            let phone = try authority.issueDevice(named: "phone")
            let gatedCredential = try TLSCredential(identity: phone)
            @MainActor func dials(to listener: SecureListener, from identity: DeviceIdentity, _ credential: TLSCredential) throws -> Duration {
                let started = ContinuousClock.now
                for _ in 0..<20 {
                    let accepted = Outcome { try await listener.accept() }
                    let dialed = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port, identity: identity,
                                                                           credential: credential) }
                    spin(until: { accepted.done && dialed.done })
                    try dialed.get().close()
                    try accepted.get().close()
                }
                return (ContinuousClock.now - started) / 20
            }
            print("a dial with TLS: \(try dials(to: old, from: oldPhone, phoneCredential)) without the gate, "
                  + "\(try dials(to: gated, from: phone, gatedCredential)) with it")
        }
    }

    /// A listener that never sends its nonce (a stranger's port, or a device without a key)
    /// holds a dial for the client's admission deadline at most, and not at all once the dial
    /// is cancelled.
    func testADialToAListenerThatSaysNothingEndsAtItsDeadline() throws {
        let phone = try GroupAuthority.create(name: "Ada", in: config("admin")).issueDevice(named: "phone")
        let (listening, port) = try loopbackListeningSocket(backlog: 4)  // the kernel completes connections; nobody answers
        defer { close(listening) }
        try MainActor.assumeIsolated {
            let credential = try TLSCredential(identity: phone)
            var started = ContinuousClock.now
            let waited = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: port, identity: phone, credential: credential) }
            spin(until: { waited.done })
            guard case .admissionTimedOut? = waited.error as? TransportError else { return XCTFail("\(String(describing: waited.error))") }
            XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, SecureChannel.admissionDeadline - .milliseconds(100))

            started = ContinuousClock.now
            let dial = Task { @MainActor in
                try await SecureChannel.connect(host: "127.0.0.1", port: port, identity: phone, credential: credential)
            }
            let cancelled = Outcome { try await dial.value }
            MainLoop.after(.milliseconds(200)) { dial.cancel() }
            spin(until: { cancelled.done })
            XCTAssertNotNil(cancelled.error)
            XCTAssertLessThan(ContinuousClock.now - started, SecureChannel.admissionDeadline, "a cancelled dial ends at once")
        }
    }
}
