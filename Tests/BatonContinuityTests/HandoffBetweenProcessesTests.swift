@testable import BatonContinuity
import BatonTestSupport
import CGLib
import DeviceTestSupport
import Foundation
import XCTest

/// Handoff between real processes, each its own device with its own identity, on loopback
/// with static peers: the seed "Implementing Handoff in Your App" (the Shapes example) across
/// devices, and "Update the Original Device's State" (continuing-user-activities-with-handoff).
final class HandoffBetweenProcessesTests: TrustTestCase {
    /// Starts device `folder` advertising a shape; returns it and the port it listens on.
    private func advertise(_ folder: URL, shape: String) throws -> (RunningProcess, String) {
        let process = try RunningProcess(product: "baton-shapes", ["--device", folder.path, "--listen", "127.0.0.1:0", "--create", shape])
        return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
    }

    func testAShapeCreatedOnOneDeviceIsContinuedOnAnother() throws {
        let (_, folders) = try group(["A", "B"])
        let (a, address) = try advertise(folders["A"]!, shape: "triangle")
        let b = try RunningProcess(product: "baton-shapes", ["--device", folders["B"]!.path, "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby"])
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        let onB = b.output, onA = a.output
        XCTAssertNotNil(onB.range(of: "nearby: \"Creating shape\" (com.example.myapp.create-shape) on A"), onB)
        XCTAssertNotNil(onB.range(of: "willContinueUserActivityWithType com.example.myapp.create-shape"), onB)
        XCTAssertNotNil(onB.range(of: "restoreUserActivityState: created a triangle"), onB)
        // The originating side saved the activity for the handoff, then heard it was continued.
        // (A, issued before B, knows B's name only once it has B's list: after the link.)
        let saveForHandoff = try XCTUnwrap(onA.range(of: "linked with "), onA)
        XCTAssertNotNil(onA.range(of: "updateUserActivityState: shape-type = triangle", range: saveForHandoff.upperBound..<onA.endIndex), onA)
        XCTAssertNotNil(onA.range(of: "userActivityWasContinued: the triangle is being edited on another device"), onA)
    }

    /// Three devices: B continues as before, while C, revoked, is refused by A before anything
    /// is sent to it and never sees A's activity.
    func testARevokedDeviceIsRefusedAndSeesNothing() throws {
        let (authority, folders) = try group(["A", "B", "C"])
        try authority.revokeDevice(named: "C").write(to: folders["A"]!.appendingPathComponent("revocations"))
        let (a, address) = try advertise(folders["A"]!, shape: "square")
        let c = try RunningProcess(product: "baton-shapes", ["--device", folders["C"]!.path, "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby"])
        XCTAssertNotNil(a.waitForEvent { $0 == .refused(from: "C", reason: .revoked) }, a.output)
        let b = try RunningProcess(product: "baton-shapes", ["--device", folders["B"]!.path, "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby"])
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        c.terminate()
        c.waitForExit()
        XCTAssertNil(c.output.range(of: "nearby:"), c.output)
        XCTAssertNotNil(b.output.range(of: "restoreUserActivityState: created a square"), b.output)
    }

    /// `baton nearby` shows what the group's devices advertise; a device of another group never
    /// appears (it cannot prove membership, so no link is made).
    func testBatonNearbyListsOnlyTheGroupsDevices() throws {
        let (authority, folders) = try group(["A"])
        try authority.issueDevice(named: "cli").write(to: config("admin").deviceDirectory)
        let stranger = root.appendingPathComponent("X")
        try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "X").write(to: stranger)
        let (a, address) = try advertise(folders["A"]!, shape: "hexagon")
        let (x, strangerAddress) = try advertise(stranger, shape: "circle")
        let nearby = try runProcess(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("baton"),
            ["nearby", "--config", config("admin").url.path, "--peer", address, "--peer", strangerAddress])
        a.terminate()
        x.terminate()
        XCTAssertEqual(nearby.status, 0, nearby.stderr)
        XCTAssertEqual(nearby.stdout, "A\t\"Creating shape\"\tcom.example.myapp.create-shape\tcom.example.myapp\n")
        XCTAssertTrue(nearby.stderr.contains("peer refused"), nearby.stderr)
    }

    /// A revocation spreads as devices meet: B, holding the old list, takes A's newer one (the
    /// group signed it) when they link, saves it, and then refuses C, whom it revokes.
    func testARevocationListSpreadsFromDeviceToDevice() throws {
        let (authority, folders) = try group(["A", "B", "C"])
        let list = try authority.revokeDevice(named: "C")
        try list.write(to: folders["A"]!.appendingPathComponent("revocations"))
        let a = try RunningProcess(product: "DeviceProbe", [folders["A"]!.path, "--ok"])
        let aAddress = try XCTUnwrap(a.listeningAddress(), a.output)
        let bFolder = folders["B"]!
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: bFolder), identityDirectory: bFolder,
                                          staticPeers: [aAddress])
            var refusedRevoked = 0
            let observation = node.diagnostics.observe {
                if case .refused(_, .revoked) = $0 { refusedRevoked += 1 }
            }
            defer { observation.cancel() }
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { node.identity.revocations.sequence == 4 })  // 1–3 named A, B, C; 4 revokes C
            XCTAssertEqual(try Data(contentsOf: bFolder.appendingPathComponent("revocations")), list, "saved beside B's identity")
            let c = try RunningProcess(product: "DeviceProbe", [folders["C"]!.path, "--ok", "--peer", "127.0.0.1:\(node.port!)"])
            defer { c.terminate() }
            // B refuses C's certificate in the handshake, as revoked (B's typed diagnostics; C's
            // side of a TLS 1.3 handshake may finish before B judges it, so C's log may say either).
            spin(until: { refusedRevoked > 0 })
            XCTAssertFalse(node.connectedPeers.contains("C"), c.output)
        }
        a.terminate()
    }

    func testAPeerThatIsNotRunningEndsTheContinuationInDidFail() throws {
        let (_, folders) = try group(["B"])
        // No device listens there: B has nothing nearby; continuing a stale entry must fail
        // with connectionUnavailable, not hang. Driven in process through the entry point.
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folders["B"]!))
            let stale = NearbyActivity(device: "A", sequence: 1, activityType: "com.example.myapp.create-shape",
                                       title: nil, appID: "com.example.myapp", teamIdentifier: "T")
            let fetch = Outcome { try await node.fetchPayload(of: stale) }
            spin(until: { fetch.done })
            XCTAssertEqual((fetch.error as? CocoaError)?.code, .userActivityConnectionUnavailable)
        }
    }
}
