@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Crypto
import Foundation
import XCTest

/// Links beyond one network (docs/PROTOCOL.md, 7.1): two ICE sessions (libnice, reliable mode)
/// in this process exchange their descriptions directly (the broker's part is left out) on
/// loopback, and the group's admission gate and mutual TLS 1.3 run over the stream; through a
/// real coturn started by the test for the relayed path.
final class IceLinkTests: ProcessTestCase {
    /// Host candidates on loopback only.
    private static let loopback = IceConfiguration(hostAddresses: ["127.0.0.1"])
    /// Generous: the machine is shared and loaded.
    private static let connectDeadline: Duration = .seconds(30)

    /// Two sessions, their descriptions exchanged (encoded and decoded, as the broker carries
    /// them), both connecting; `first` controls.
    @MainActor
    private static func connectPair(_ first: IceConfiguration, _ second: IceConfiguration)
        throws -> (IceSession, IceSession, Outcome<IceStream>, Outcome<IceStream>) {
        let a = try IceSession(configuration: first, role: .controlling), b = try IceSession(configuration: second, role: .controlled)
        let deadline = connectDeadline
        let offer = Outcome { try await a.localDescription() }
        let answer = Outcome { try await b.localDescription() }
        spin(until: { offer.done && answer.done })
        let offerBytes = try offer.get().encoded(), answerBytes = try answer.get().encoded()
        let aStream = Outcome { try await a.connect(remote: try IceDescription.decode(answerBytes), deadline: deadline) }
        let bStream = Outcome { try await b.connect(remote: try IceDescription.decode(offerBytes), deadline: deadline) }
        spin(until: { aStream.done && bStream.done })
        return (a, b, aStream, bStream)
    }

    /// The device link over both streams: `controlling` and `controlled` as TLS client and server.
    @MainActor
    private static func link(_ aStream: IceStream, _ bStream: IceStream, controlling: DeviceIdentity, controlled: DeviceIdentity)
        throws -> (Outcome<SecureChannel>, Outcome<SecureChannel>) {
        let clientCredential = try TLSCredential(identity: controlling), serverCredential = try TLSCredential(identity: controlled)
        let client = Outcome { try await SecureChannel.open(over: aStream, role: .controlling, identity: controlling,
                                                            credential: clientCredential) }
        let server = Outcome { try await SecureChannel.open(over: bStream, role: .controlled, identity: controlled,
                                                            credential: serverCredential) }
        spin(until: { client.done && server.done })
        return (client, server)
    }

    /// Bytes both ways over two channels, each read to its end.
    @MainActor
    private static func exchangeBytes(_ client: SecureChannel, _ server: SecureChannel) throws {
        let request = Data((0..<40_000).map { UInt8($0 % 251) }), reply = Data("over ICE".utf8)
        let sent = Outcome {
            try await client.send(request)
            try await client.finishWriting()
            return true
        }
        let served = Outcome { () async throws -> Data in
            var received = Data()
            while true {
                let chunk = try await server.receive(maxLength: 16_384)
                if chunk.isEmpty { break }
                received += chunk
            }
            try await server.send(reply)
            try await server.finishWriting()
            return received
        }
        let answered = Outcome { () async throws -> Data in
            var received = Data()
            while true {
                let chunk = try await client.receive(maxLength: 16_384)
                if chunk.isEmpty { break }
                received += chunk
            }
            return received
        }
        spin(until: { sent.done && served.done && answered.done })
        XCTAssertNoThrow(try sent.get())
        XCTAssertEqual(try served.get(), request, "every byte arrives, in order, through TLS over pseudo-TCP")
        XCTAssertEqual(try answered.get(), reply)
    }

    func testTwoDevicesOfTheGroupLinkOverICEWithMutualTLS() throws {
        let (controlling, controlled) = try devicesInIceRoles()
        XCTAssertEqual(IceSession.Role.for(local: controlled.identifier, remote: controlling.identifier), .controlled,
                       "exactly one side controls")
        try MainActor.assumeIsolated {
            let (a, b, aStream, bStream) = try Self.connectPair(Self.loopback, Self.loopback)
            defer { a.close(); b.close() }
            XCTAssertEqual(try aStream.get().path, .host)
            XCTAssertEqual(a.selectedPath, .host)
            XCTAssertEqual(b.selectedPath, .host)
            let (client, server) = try Self.link(try aStream.get(), try bStream.get(), controlling: controlling, controlled: controlled)
            XCTAssertEqual(try client.get().peerIdentifier, controlled.identifier, "the peer is known by its certificate")
            XCTAssertEqual(try server.get().peerIdentifier, controlling.identifier)
            XCTAssertEqual(try client.get().applicationProtocol, SecureChannel.alpn)
            try Self.exchangeBytes(try client.get(), try server.get())
        }
    }

    /// The controlling side selects a pair on the peer's first answer to its check, the
    /// controlled side only once its own check of the pair is answered (RFC 8445 7.3.1.5 and
    /// 8.1.1; libnice likewise), so each side must go on answering checks after its connect
    /// returned, before anything reads its stream. Here the controlled side starts its checks
    /// only once the controlling side has its stream, which nothing reads yet: it connects all
    /// the same (it timed out before the stream read itself). What the controlled side sends
    /// before the controlling side's first read is kept for that read, and a link then runs
    /// over both streams.
    func testTheControlledSideConnectsWhileThePeersStreamIsNotReadYet() throws {
        let (controlling, controlled) = try devicesInIceRoles()
        try MainActor.assumeIsolated {
            let a = try IceSession(configuration: Self.loopback, role: .controlling)
            let b = try IceSession(configuration: Self.loopback, role: .controlled)
            defer { a.close(); b.close() }
            let offer = Outcome { try await a.localDescription() }, answer = Outcome { try await b.localDescription() }
            spin(until: { offer.done && answer.done })
            let offerBytes = try offer.get().encoded(), answerBytes = try answer.get().encoded()
            let deadline = Self.connectDeadline
            // The controlled side answers checks before it knows its peer (RFC 8445 7.3.1.1).
            let aStream = Outcome { try await a.connect(remote: try IceDescription.decode(answerBytes), deadline: deadline) }
            XCTAssertTrue(MainLoop.run(until: { aStream.done }, timeout: deadline + .seconds(10)))
            let streamA = try XCTUnwrap(aStream.value).get()
            XCTAssertNil(b.selectedPath, "the controlled side has not started its checks")
            XCTAssertTrue(streamA.readsItself)
            let bStream = Outcome { try await b.connect(remote: try IceDescription.decode(offerBytes), deadline: deadline) }
            XCTAssertTrue(MainLoop.run(until: { bStream.done }, timeout: deadline + .seconds(10)))
            let streamB = try XCTUnwrap(bStream.value).get()
            XCTAssertEqual(b.selectedPath, .host)

            let early = Data("sent before the peer reads".utf8)
            let written = Outcome { () async throws -> Int in
                let bytes = early.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
                defer { g_bytes_unref(bytes) }
                return try await GIOAsync.call { cancellable, callback, userData in
                    g_output_stream_write_bytes_async(g_io_stream_get_output_stream(streamB.stream), bytes, G_PRIORITY_DEFAULT,
                                                      cancellable, callback, userData)
                } finish: { result, error in
                    let count = g_output_stream_write_bytes_finish(g_io_stream_get_output_stream(streamB.stream), result, error)
                    return count < 0 ? nil : Int(count)
                }
            }
            spin(until: { written.done && streamA.earlyBytesHeld == early.count })
            XCTAssertEqual(try written.get(), early.count)
            XCTAssertTrue(streamA.readsItself, "nothing read the stream yet")
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = g_pollable_input_stream_read_nonblocking(
                OpaquePointer(g_io_stream_get_input_stream(streamA.stream)),
                &buffer, gsize(buffer.count), nil, nil)
            XCTAssertEqual(Data(buffer.prefix(max(count, 0))), early, "the first read has what came before it, in order")
            XCTAssertFalse(streamA.readsItself, "the first read ends the pump")
            XCTAssertEqual(streamA.earlyBytesHeld, 0)

            let (client, server) = try Self.link(streamA, streamB, controlling: controlling, controlled: controlled)
            try Self.exchangeBytes(try client.get(), try server.get())
        }
    }

    /// A device of another group holds another discovery key: refused at the admission gate,
    /// before TLS, as on the LAN (SecureChannelTests.testADeviceOfAnotherGroupIsRefusedByBothSides).
    func testAStrangerIsRefusedAtTheGateOverICE() throws {
        let ada = try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "laptop")
        let eve = try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "laptop")
        try MainActor.assumeIsolated {
            let (a, b, aStream, bStream) = try Self.connectPair(Self.loopback, Self.loopback)
            defer { a.close(); b.close() }
            let (client, server) = try Self.link(try aStream.get(), try bStream.get(), controlling: eve, controlled: ada)
            guard case .notAdmitted? = server.error as? TransportError else {
                return XCTFail("server: \(String(describing: server.error))")
            }
            guard case .admissionRefused? = client.error as? TransportError else {
                return XCTFail("client: \(String(describing: client.error))")
            }
        }
    }

    /// A peer that connects over ICE and then says nothing: the controlled side gives up at the
    /// gate's deadline (its read on the ICE stream cancelled), typed, as a listener does.
    func testASilentPeerIsNotAdmittedByTheGatesDeadline() throws {
        let ada = try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "laptop")
        try MainActor.assumeIsolated {
            let (a, b, aStream, bStream) = try Self.connectPair(Self.loopback, Self.loopback)
            defer { a.close(); b.close() }
            let silentPeer = try aStream.get(), adaStream = try bStream.get()
            let credential = try TLSCredential(identity: ada)
            let server = Outcome { try await SecureChannel.open(over: adaStream, role: .controlled, identity: ada, credential: credential) }
            spin(until: { server.done })
            guard case .notAdmitted? = server.error as? TransportError else {
                return XCTFail("server: \(String(describing: server.error))")
            }
            withExtendedLifetime(silentPeer) {}
        }
    }

    /// A stranger past the gate (as an insider holding the group's discovery key could be):
    /// its certificate is refused by the same check as on the LAN (CertificateCheck), here by the
    /// group's device as the TLS client, which sees the stranger's certificate first.
    func testAStrangersCertificateIsRefusedOverICE() throws {
        let ada = try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "laptop")
        let eve = try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "laptop")
        try MainActor.assumeIsolated {
            let (a, b, aStream, bStream) = try Self.connectPair(Self.loopback, Self.loopback)
            defer { a.close(); b.close() }
            let adaStream = try aStream.get(), eveStream = try bStream.get()
            let adaPolicy = CertificatePolicy.groupMember(identity: ada, credential: try TLSCredential(identity: ada))
            let evePolicy = CertificatePolicy.groupMember(identity: eve, credential: try TLSCredential(identity: eve))
            let client = Outcome { try await SecureChannel.connect(overStream: adaStream.stream, policy: adaPolicy,
                                                                   offering: ProtocolList([SecureChannel.alpn])) }
            let server = Outcome { try await SecureChannel.accept(stream: eveStream.stream, policy: evePolicy) }
            spin(until: { client.done && server.done })
            guard case .peerRejected(.peerNotInGroup)? = client.error as? TransportError else {
                return XCTFail("client: \(String(describing: client.error))")
            }
            XCTAssertNotNil(server.error, "the stranger gets no channel either")
        }
    }

    func testSignalHandlersAreReleasedWhenASessionCloses() throws {
        _ = MainActor.assumeIsolated { MainLoop.run(until: { true }, timeout: .zero) }
        let before = LoopDiagnostics.liveCallbackBoxes
        try MainActor.assumeIsolated {
            let session = try IceSession(configuration: Self.loopback, role: .controlling)
            let description = Outcome { try await session.localDescription() }
            spin(until: { description.done })
            XCTAssertFalse(try description.get().candidates.isEmpty)
            XCTAssertGreaterThan(LoopDiagnostics.liveCallbackBoxes, before, "the handlers hold their boxes")
            session.close()
            XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, before, "a signal handler outlived close()")
        }
    }

    /// A peer that never answers the checks: a typed failure by the deadline, never a hang.
    func testAPeerThatNeverAnswersFailsTypedByTheDeadline() throws {
        let port = try Self.freeUDPPort()  // nothing listens on it
        let silent = try IceDescription(ufrag: "abcd", pwd: String(repeating: "p", count: 22),
                                        candidates: ["a=candidate:1 1 UDP 2013266431 127.0.0.1 \(port) typ host"])
        try MainActor.assumeIsolated {
            let session = try IceSession(configuration: Self.loopback, role: .controlling)
            defer { session.close() }
            let stream = Outcome { try await session.connect(remote: silent, deadline: .seconds(2)) }
            spin(until: { stream.done })
            switch stream.error as? IceError {
            case .connectTimedOut?, .connectivityFailed?: break
            default: XCTFail("\(String(describing: stream.error))")
            }
            XCTAssertNil(session.selectedPath)
        }
    }

    // MARK: Hostile descriptions

    func testAHugeOrMalformedDescriptionIsRefusedTyped() throws {
        let line = "a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ host"
        let valid = try IceDescription(ufrag: "abcd", pwd: String(repeating: "p", count: 22), candidates: [line])
        XCTAssertEqual(try IceDescription.decode(valid.encoded()), valid)

        // 10 000 candidates: refused by size, before it is parsed.
        let huge = try Self.wire(ufrag: "abcd", pwd: valid.pwd, candidates: Array(repeating: line, count: 10_000))
        XCTAssertThrowsError(try IceDescription.decode(huge)) { error in
            guard case .descriptionTooLarge? = error as? IceError else { return XCTFail("\(error)") }
        }
        // Made in code, or small enough to decode: the count cap.
        XCTAssertThrowsError(try IceDescription(ufrag: "abcd", pwd: valid.pwd, candidates: Array(repeating: line, count: 10_000))) {
            guard case .invalidDescription? = $0 as? IceError else { return XCTFail("\($0)") }
        }
        let refused: [(String, String, [String])] = [
            (String(repeating: "u", count: 10_000), valid.pwd, [line]),  // oversized ufrag
            ("abcd", String(repeating: "p", count: 5_000), [line]),  // oversized pwd
            ("ab", valid.pwd, [line]),  // too short
            ("ab\ncd", valid.pwd, [line]),  // not ice-chars
            ("abcd", valid.pwd, []),  // no candidate
            ("abcd", valid.pwd, [line + String(repeating: " ", count: 300)]),  // oversized line
            ("abcd", valid.pwd, ["a=candidate:1 1 UDP 2013266431 turn.example.org 40000 typ host"]),  // a name to resolve
            ("abcd", valid.pwd, ["a=candidate:1 1 TCP 2013266431 127.0.0.1 40000 typ host"]),
            ("abcd", valid.pwd, ["a=candidate:1 2 UDP 2013266431 127.0.0.1 40000 typ host"]),  // another component
            ("abcd", valid.pwd, ["a=candidate:1 1 UDP 2013266431 127.0.0.1 70000 typ host"]),
            ("abcd", valid.pwd, ["a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ host\r\na=evil"]),
            ("abcd", valid.pwd, ["a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ bogus"]),
            ("abcd", valid.pwd, ["a=candidate:1 1 UDP 2013266431 127.0.0.1 40000 typ relay raddr x rport 1"]),
        ]
        for (ufrag, pwd, candidates) in refused {
            XCTAssertThrowsError(try IceDescription(ufrag: ufrag, pwd: pwd, candidates: candidates)) {
                guard case .invalidDescription? = $0 as? IceError else { return XCTFail("\($0)") }
            }
            let wire = try Self.wire(ufrag: ufrag, pwd: pwd, candidates: candidates)
            if wire.count <= IceDescription.maximumEncodedSize {
                XCTAssertThrowsError(try IceDescription.decode(wire)) {
                    guard case .invalidDescription? = $0 as? IceError else { return XCTFail("\($0)") }
                }
            }
            let json = try JSONSerialization.data(withJSONObject: ["ufrag": ufrag, "pwd": pwd, "candidates": candidates])
            XCTAssertThrowsError(try JSONDecoder().decode(IceDescription.self, from: json), "Codable checks as well")
        }
        XCTAssertThrowsError(try IceDescription.decode(Data("not a GVariant".utf8))) {
            guard case .invalidDescription? = $0 as? IceError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try IceDescription.decode(try Variant.tuple([.uint32(2), .string("abcd"), .string(valid.pwd),
                                                                          .array(elementType: "s", [.string(line)])]).serialized())) {
            guard case .invalidDescription? = $0 as? IceError else { return XCTFail("\($0)") }
        }
        XCTAssertNotNil(IceDescription.candidateType("a=candidate:2 1 UDP 1677724415 192.0.2.7 51000 typ srflx raddr 10.0.0.2 rport 51000"))
        XCTAssertNotNil(IceDescription.candidateType("a=candidate:3 1 UDP 16777215 2001:db8::1 51000 typ relay raddr 0.0.0.0 rport 0"))
    }

    /// An encoded description of these parts, unchecked (as a peer could send it).
    private static func wire(ufrag: String, pwd: String, candidates: [String]) throws -> Data {
        try Variant.tuple([.uint32(1), .string(ufrag), .string(pwd), .array(elementType: "s", candidates.map(Variant.string))]).serialized()
    }

    // MARK: Through a TURN relay (coturn)

    /// TURN REST credentials (draft-uberti-behave-turn-rest): username "<expiry>:<device>",
    /// password base64(HMAC-SHA1(secret, username)). (The tests' own, until the group's relay
    /// settings give them.)
    private func restCredentials(secret: String, device: String, validFor seconds: Int = 3600) -> (String, String) {
        let username = "\(Int(Date().timeIntervalSince1970) + seconds):\(device)"
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return (username, Data(mac).base64EncodedString())
    }

    private static func relayOnly(port: UInt16, username: String, password: String) -> IceConfiguration {
        IceConfiguration(turnServers: [IceRelay(host: "127.0.0.1", port: port, username: username, password: password)],
                         hostAddresses: ["127.0.0.1"], relayOnly: true, gatheringDeadline: .seconds(30))
    }

    func testRelayOnlyCandidatesThroughCoturnGiveARelayedLink() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        let secret = "s3cret-\(UUID().uuidString)"
        let port = try startCoturn(secret: secret)
        let (userA, passwordA) = restCredentials(secret: secret, device: laptop.identifier)
        let (userB, passwordB) = restCredentials(secret: secret, device: phone.identifier)
        try MainActor.assumeIsolated {
            let (a, b, aStream, bStream) = try Self.connectPair(Self.relayOnly(port: port, username: userA, password: passwordA),
                                                                Self.relayOnly(port: port, username: userB, password: passwordB))
            defer { a.close(); b.close() }
            let offered = Outcome { try await a.localDescription() }
            spin(until: { offered.done })
            XCTAssertTrue(try offered.get().candidates.allSatisfy { IceDescription.candidateType($0) == "relay" })
            XCTAssertEqual(try aStream.get().path, .relayed)
            XCTAssertEqual(b.selectedPath, .relayed)
            let (client, server) = try Self.link(try aStream.get(), try bStream.get(), controlling: laptop, controlled: phone)
            XCTAssertEqual(try server.get().peerIdentifier, laptop.identifier)
            try Self.exchangeBytes(try client.get(), try server.get())
        }
    }

    func testAWrongTURNCredentialFailsTypedBeforeTheDeadline() throws {
        let secret = "s3cret-\(UUID().uuidString)"
        let port = try startCoturn(secret: secret)
        let (username, _) = restCredentials(secret: secret, device: "laptop")
        let (_, otherPassword) = restCredentials(secret: "another secret", device: "laptop")
        try MainActor.assumeIsolated {
            let session = try IceSession(configuration: Self.relayOnly(port: port, username: username, password: otherPassword),
                                         role: .controlling)
            defer { session.close() }
            let description = Outcome { try await session.localDescription() }
            spin(until: { description.done })
            guard case .noRelayCandidate? = description.error as? IceError else {
                return XCTFail("\(String(describing: description.error))")
            }
        }
    }
}
