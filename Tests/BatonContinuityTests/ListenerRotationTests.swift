@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// A node's port rotation in one process, on loopback, rotated by hand as discovery does at
/// each rotation of the published name (`rotateListener()`; the real rotation between hosts is
/// `PortRotationBetweenHostsTests`). Continuation streams ride the links, so a rotation does
/// not touch them; what it changes is which port accepts new links.
final class ListenerRotationTests: TrustTestCase {
    /// After a rotation the node publishes the new port, and the old one still accepts a link
    /// during the grace. Once the grace and the handshake deadline after it are over the old
    /// listener is closed, its port refuses connections, and the node is back to one listener.
    func testAReplacedListenerAcceptsLinksDuringItsGraceOnly() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = try authority.issueDevice(named: "A")
        let b = try authority.issueDevice(named: "B")
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: a)
            node.listenerRotationGrace = .seconds(3)
            node.handshakeDeadline = .seconds(1)
            try node.start(host: "127.0.0.1", port: 0, discovery: .off)
            defer { node.stop() }
            let old = try XCTUnwrap(node.port)
            let rotated = try XCTUnwrap(node.rotateListener())
            XCTAssertNotEqual(rotated, old)
            XCTAssertEqual(node.port, rotated)

            let credential = try TLSCredential(identity: b)
            var linked: Result<Void, Error>?
            Task { @MainActor in
                do {
                    let channel = try await SecureChannel.connect(host: "127.0.0.1", port: old, identity: b, credential: credential)
                    defer { channel.close() }
                    let bus = try await PeerBus.open(over: channel)
                    defer { bus.close() }
                    linked = .success(())
                } catch {
                    linked = .failure(error)
                }
            }
            spin(until: { linked != nil })
            XCTAssertNoThrow(try XCTUnwrap(linked).get(), "a link is accepted on the old port during its grace")

            spin(until: { node.previousListeners.isEmpty })
            var refused: Bool?
            Task { @MainActor in
                do {
                    let channel = try await SecureChannel.connect(host: "127.0.0.1", port: old, identity: b, credential: credential)
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
