@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 9, "Trust": a revocation cuts live links and refuses calls at once, however the list
/// arrives — copied beside a device's identity, or relayed by another device — and rotates the
/// group's discovery key, which the remaining devices get over their links. `Continued` is
/// honoured only from the device that fetched that activity. Real processes (DeviceProbe) on
/// loopback.
final class RevocationTests: ProcessTestCase {
    /// Starts a DeviceProbe for `folder`; returns it and the address it listens on.
    private func probe(_ folder: URL, _ arguments: [String] = []) throws -> (RunningProcess, String) {
        let process = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"] + arguments)
        processes.append(process)
        return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
    }

    /// Writes `data` to `url` as the tools do: a temporary file renamed into place.
    private static func install(_ data: Data, at url: URL) throws {
        try data.write(to: url, options: .atomic)
    }

    /// A and C linked; the list revoking C is copied into A's folder: A drops C's link at once
    /// (no new connection needed), and C can no longer fetch A's activity.
    func testAListCopiedInCutsTheRevokedDevicesLinkAtOnce() throws {
        let (authority, folders) = try group(["A", "C"])
        let (a, address) = try probe(folders["A"]!)
        let (c, _) = try probe(folders["C"]!, ["--peer", address])
        XCTAssertTrue(c.waitForNearby(from: "A"), c.output)
        XCTAssertTrue(a.waitForNearby(from: "C"), a.output)

        let written = Date()
        try Self.install(try authority.revokeDevice(named: "C"), at: folders["A"]!.appendingPathComponent("revocations"))
        XCTAssertTrue(a.waitFor(.unlinked(peer: "C", reason: .revoked)), a.output)
        let cut = Date().timeIntervalSince(written)
        print("revocation copied in → link cut in \(Int(cut * 1000)) ms")
        XCTAssertLessThan(cut, 10, "at once, not at the next connection (loose bound for a loaded machine)")
        XCTAssertTrue(c.waitForUnlink(from: "A"), c.output)
        c.send("continue 5")
        // The probe's answer (its protocol): it did not continue.
        XCTAssertNotNil(c.waitForLine(containing: "failed"), c.output)
        XCTAssertFalse(c.diagnosticEvents.contains { if case .continued = $0 { true } else { false } }, c.output)
        // A's app was never asked for its payload (the probe says each save).
        XCTAssertNil(a.output.range(of: "saving for a fetch"), a.output)
        // C dials again (a static peer) and is refused in the handshake.
        XCTAssertTrue(a.waitForRefusal(.revoked), a.output)
    }

    /// A linked with B and with C; the list revoking C reaches B (copied into B's folder): B
    /// relays it to A over their link, and A drops C at once. The list also rotates the
    /// discovery key: B reads the new key beside it, A gets it from B over their link, checked
    /// against the list's commitment, and saves it.
    func testARelayedListCutsTheRevokedDevicesLinkAndTheNewDiscoveryKeyFollows() throws {
        let (authority, folders) = try group(["A", "B", "C"])
        let (a, address) = try probe(folders["A"]!)
        let (b, _) = try probe(folders["B"]!, ["--peer", address])
        let (c, _) = try probe(folders["C"]!, ["--peer", address])
        XCTAssertTrue(b.waitForNearby(from: "A"), b.output)
        XCTAssertTrue(c.waitForNearby(from: "A"), c.output)
        XCTAssertTrue(a.waitForNearby(from: "B"), a.output)
        XCTAssertTrue(a.waitForNearby(from: "C"), a.output)

        let list = try authority.revokeDevice(named: "C")
        let newKey = try authority.discoveryKey()
        XCTAssertNotEqual(try DeviceIdentity.load(from: folders["A"]!).discoveryKey, newKey)
        try Self.install(newKey.bytes, at: folders["B"]!.appendingPathComponent("discovery.key"))
        chmod(folders["B"]!.appendingPathComponent("discovery.key").path, 0o600)
        let written = Date()
        try Self.install(list, at: folders["B"]!.appendingPathComponent("revocations"))

        // Lists 1–3 named A, B and C as each was added; list 4 revokes C. A failure shows both
        // sides: whether B read list 4, and what A got.
        let both = { "A:\n\(a.output)\nB:\n\(b.output)" }
        XCTAssertTrue(a.waitFor(.revocationsAdopted(sequence: 4, from: "B")), both())
        print("revocation copied into B → relayed to A in \(Int(Date().timeIntervalSince(written) * 1000)) ms")
        XCTAssertTrue(b.waitFor(.revocationsAdopted(sequence: 4, from: nil)), both())
        XCTAssertTrue(a.waitFor(.unlinked(peer: "C", reason: .revoked)), both())
        c.send("continue 5")
        // The probe's answer (its protocol): it did not continue; A's app was never asked for its payload.
        XCTAssertNotNil(c.waitForLine(containing: "failed"), c.output)
        XCTAssertNil(a.output.range(of: "saving for a fetch"), a.output)

        XCTAssertTrue(a.waitFor(.discoveryKeyAdopted(sequence: 4, from: "B")), both())
        let onA = try DeviceIdentity.load(from: folders["A"]!)
        XCTAssertEqual(onA.discoveryKey, newKey, "saved beside A's identity")
        XCTAssertTrue(onA.discoveryKeyIsCurrent)
        XCTAssertEqual(mode(folders["A"]!.appendingPathComponent("discovery.key")), 0o600)
        // B still continues from A.
        b.send("continue 10")
        XCTAssertTrue(b.waitForContinued(from: "A"), b.output)
    }

    /// The list on disk decides each call, even before the file watch has fired.
    func testACallFromADeviceTheListOnDiskRevokesIsRefused() throws {
        let (authority, folders) = try group(["A", "C"])
        let c = try DeviceIdentity.load(from: folders["C"]!)
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folders["A"]!), identityDirectory: folders["A"]!)
            let peer = DevicePeer(id: c.identifier, serial: c.certificate.serialHex)
            XCTAssertNil(node.refusal(of: peer))
            try Self.install(try authority.revokeDevice(named: "C"), at: folders["A"]!.appendingPathComponent("revocations"))
            XCTAssertEqual(node.refusal(of: peer), "C has been revoked")
        }
    }

    /// A list relayed by a peer never replaces a newer one copied in beside the identity that
    /// the file watch has not reported yet: B holds list 2; list 4 (revoking C) is copied into
    /// B's folder; then list 3, which A passed on when C linked, reaches B. B takes list 4 from
    /// its folder, keeps it there, and ignores list 3. (Saving list 3 over it lost list 4 for
    /// good: no device relayed it, and the file watch then read list 3 back.)
    func testARelayedListNeverReplacesANewerListCopiedIn() throws {
        let (authority, folders) = try group(["A", "B", "C"])
        let listNamingC = try Data(contentsOf: folders["C"]!.appendingPathComponent("revocations"))
        let onDisk = folders["B"]!.appendingPathComponent("revocations")
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folders["B"]!), identityDirectory: folders["B"]!)
            XCTAssertEqual(node.identity.revocations.sequence, 2)
            let revokingC = try authority.revokeDevice(named: "C")
            try Self.install(revokingC, at: onDisk)
            node.consider(revocationData: listNamingC, from: "A")
            XCTAssertEqual(node.identity.revocations.sequence, 4)
            XCTAssertEqual(try Data(contentsOf: onDisk), revokingC, "list 4, copied in, stays beside the identity")
        }
    }

    /// Three devices: B (in this process), which never fetched A's activity, says it continued
    /// it — refused, and A's app keeps its activity; C fetches and continues it — honoured; B
    /// saying so again is still refused.
    func testContinuedIsHonouredOnlyFromTheDeviceThatFetched() throws {
        let (_, folders) = try group(["A", "B", "C"])
        let (a, address) = try probe(folders["A"]!)
        let (c, _) = try probe(folders["C"]!, ["--peer", address])
        XCTAssertTrue(c.waitForNearby(from: "A"), c.output)
        let aAddress = try XCTUnwrap(PeerAddress(address))
        let bFolder = folders["B"]!
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: bFolder), identityDirectory: bFolder,
                                          staticPeers: [aAddress])
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { node.link(shownAs: "A")?.remote != nil })
            let sequence = try XCTUnwrap(node.link(shownAs: "A")?.remote?.sequence)
            let claim: @MainActor () -> Error? = {
                let call = Outcome { try await node.callDevice("A") { bus in try await bus.call(.continued(sequence: sequence)) } }
                spin(until: { call.done })
                return call.error
            }
            XCTAssertEqual((claim() as? CocoaError)?.code, .userActivityHandoffFailed)
            let refused = DiagnosticEvent.refused(from: "B", reason: .continuedWithoutFetch)
            XCTAssertTrue(a.waitFor(refused), a.output)
            let toldA = { a.diagnosticEvents.filter { if case .continuedElsewhere = $0 { true } else { false } } }
            XCTAssertEqual(toldA(), [], a.output)

            c.send("continue 10")
            XCTAssertTrue(c.waitForContinued(from: "A"), c.output)
            XCTAssertTrue(a.waitFor(.continuedElsewhere(activityType: "com.example.probe.editing", by: "C")), a.output)
            XCTAssertEqual((claim() as? CocoaError)?.code, .userActivityHandoffFailed)
            XCTAssertTrue(a.waitFor(refused, occurrence: 2), a.output)
            XCTAssertEqual(toldA().count, 1, a.output)
            // What A's app was told, through its delegate (the probe says it, after the event):
            // once, and not again for B's second claim, refused before.
            XCTAssertNotNil(a.waitForLine(containing: "was continued"), a.output)
            XCTAssertEqual(a.output.components(separatedBy: "was continued").count - 1, 1, a.output)
        }
    }
}
