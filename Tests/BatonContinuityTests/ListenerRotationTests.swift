@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Counts the continuation streams an activity was given, and closes them.
@MainActor
private final class StreamCounter: UserActivityDelegate {
    var opened = 0
    func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                      outputStream: ContinuationOutputStream) {
        opened += 1
        inputStream.close()
    }
}

/// A node's port rotation in one process, on loopback, rotated by hand as discovery does at
/// each rotation of the published name (`rotateListener()`; the real rotation between hosts is
/// `PortRotationBetweenHostsTests`): what a continuation stream granted just before a
/// rotation sees.
final class ListenerRotationTests: TrustTestCase {
    /// A grant made before the rotation names the old port, and a stream opened there during
    /// the grace is accepted; a grant made after names the new one. Once the grace and the
    /// handshake deadline after it are over the old listener is closed, its port refuses
    /// connections, and the node is back to one listener.
    func testAStreamGrantedBeforeARotationOpensOnTheOldPortDuringTheGrace() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = try authority.issueDevice(named: "A")
        let b = try authority.issueDevice(named: "B")
        try MainActor.assumeIsolated {
            launchAsProbeApp(ContinuedActivityRecorder())
            Application.shared.activate()
            let counter = StreamCounter()
            let activity = UserActivity(activityType: "com.example.probe.editing")
            activity.title = "Probe"
            activity.supportsContinuationStreams = true
            activity.delegate = counter
            activity.becomeCurrent()
            let node = try ContinuityNode(identity: a)
            node.listenerRotationGrace = .seconds(3)
            node.handshakeDeadline = .seconds(1)
            try node.start(host: "127.0.0.1", port: 0, discovery: .off)
            defer {
                node.stop()
                activity.invalidate()
            }
            spin(until: { node.advertised != nil })
            let sequence = try XCTUnwrap(node.advertised?.sequence)

            let (token, old) = try node.streamGrant(sequence: sequence, for: b.identifier)
            XCTAssertEqual(old, node.port)
            let rotated = try XCTUnwrap(node.rotateListener())
            XCTAssertNotEqual(rotated, old)
            XCTAssertEqual(node.port, rotated)
            XCTAssertEqual(try node.streamGrant(sequence: sequence, for: b.identifier).port, rotated, "a new grant names the new port")

            let credential = try TLSCredential(identity: b)
            var answer: Result<Data, Error>?
            Task { @MainActor in
                do {
                    let channel = try await SecureChannel.connect(host: "127.0.0.1", port: old, identity: b, credential: credential,
                                                                  applicationProtocol: SecureChannel.streamALPN)
                    defer { channel.close() }
                    try await channel.send(token)
                    answer = .success(try await channel.receive(maxLength: 1))
                } catch {
                    answer = .failure(error)
                }
            }
            spin(until: { answer != nil })
            XCTAssertEqual(try XCTUnwrap(answer).get(), Data([ContinuityNode.streamAcceptance]), "accepted on the old port")
            spin(until: { counter.opened == 1 })

            spin(until: { node.previousListeners.isEmpty })
            var refused: Bool?
            Task { @MainActor in
                do {
                    let channel = try await SecureChannel.connect(host: "127.0.0.1", port: old, identity: b, credential: credential,
                                                                  applicationProtocol: SecureChannel.streamALPN)
                    channel.close()
                    refused = false
                } catch {
                    refused = true
                }
            }
            spin(until: { refused != nil })
            XCTAssertEqual(refused, true, "port \(old) still accepts after its grace")
        }
    }

    /// A node whose port was given keeps it: a rotation leaves its one listener alone.
    func testAGivenPortIsNotRotated() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = try authority.issueDevice(named: "A")
        try MainActor.assumeIsolated {
            launchAsProbeApp(ContinuedActivityRecorder())
            let probe = try SecureListener(identity: a, credential: try TLSCredential(identity: a))
            let port = probe.port
            probe.close()  // a port free now, to give
            let node = try ContinuityNode(identity: a)
            try node.start(host: "127.0.0.1", port: port, discovery: .off)
            defer { node.stop() }
            XCTAssertNil(node.rotateListener())
            XCTAssertEqual(node.port, port)
            XCTAssertTrue(node.previousListeners.isEmpty)
        }
    }
}
