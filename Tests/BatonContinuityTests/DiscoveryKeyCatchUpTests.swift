@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 26, "A new discovery key can be missed for good": a linked device that asked its
/// peers for the new discovery key once, before any had it, never asked again — so it kept
/// admitting the revoked device's old key at its gate (and sending that device its
/// certificate), and after a restart could not reach its peers. Now a device whose list names
/// a key it does not hold asks again — at once when a linked device sends it the list (as a
/// device does when it got the key), on each new link, and on a doubling timer — and takes it
/// from whichever linked device has it. Real processes (DeviceProbe) on loopback.
final class DiscoveryKeyCatchUpTests: ProcessTestCase {
    /// Starts a DeviceProbe for `folder`; returns it and the address it listens on.
    private func probe(_ folder: URL, _ arguments: [String] = []) throws -> (RunningProcess, String) {
        let process = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"] + arguments)
        processes.append(process)
        return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
    }

    /// Whether a dial to `port` with `identity` ends at the admission gate (its key refused),
    /// and how it ended.
    private func refusedAtTheGate(port: UInt16, as identity: DeviceIdentity) throws -> (Bool, String) {
        try MainActor.assumeIsolated {
            let credential = try TLSCredential(identity: identity)
            let dial = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: port, identity: identity, credential: credential) }
            spin(until: { dial.done })
            if let channel = try? dial.get() { channel.close() }
            guard case .admissionRefused? = dial.error as? TransportError else { return (false, "\(String(describing: dial.error))") }
            return (true, "refused at the gate")
        }
    }

    /// A is linked with B, C and D. C is revoked: the new list (4) is copied to B alone, with
    /// no key; B passes it to A and A to D, and each asks the others for the key list 4 names —
    /// too early, none has it (A says so). While A lacks the key, C's old key still passes its
    /// gate. Then the key is copied to D (not B, whom A asked first): A gets it from D, B gets
    /// it from A, and C's old key is refused at A's gate from then on. Restarted, A reaches B.
    func testADeviceThatAskedTooEarlyGetsTheNewKeyFromAnyPeerAndShutsTheOldKeyOut() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var folders: [String: URL] = [:]
        for name in ["A", "B", "C", "D"] {
            folders[name] = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folders[name]!)
        }
        let c = try DeviceIdentity.load(from: folders["C"]!)
        let (a, address) = try probe(folders["A"]!)
        let aPort = try XCTUnwrap(PeerAddress(address)?.port)
        let (b, bAddress) = try probe(folders["B"]!, ["--peer", address])
        let (_, _) = try probe(folders["C"]!, ["--peer", address])
        let (d, _) = try probe(folders["D"]!, ["--peer", address])
        let all = { "A:\n\(a.output)\nB:\n\(b.output)\nD:\n\(d.output)" }
        for peer in ["B", "C", "D"] { XCTAssertTrue(a.waitForNearby(from: peer), all()) }
        // B holds list 4 (naming D, relayed by A) before list 5 is copied in: a device saving a
        // peer's list as one is copied in can write over it (two writers of one file).
        XCTAssertTrue(b.waitFor(.revocationsAdopted(sequence: 4, from: "A")), all())

        // Lists 1–4 named A, B, C and D as each was added; list 5 revokes C.
        let list = try authority.revokeDevice(named: "C")
        let newKey = try authority.discoveryKey()
        try list.write(to: folders["B"]!.appendingPathComponent("revocations"), options: .atomic)
        XCTAssertTrue(a.waitFor(.revocationsAdopted(sequence: 5, from: "B")), all())
        XCTAssertTrue(a.waitFor(.unlinked(peer: "C", reason: .revoked)), all())
        XCTAssertTrue(d.waitFor(.revocationsAdopted(sequence: 5, from: "A")), all())
        // A asked before any device had the key.
        XCTAssertNotNil(a.waitForEvent { if case .discoveryKeyMissing(5, _) = $0 { true } else { false } }, all())
        XCTAssertFalse(try DeviceIdentity.load(from: folders["A"]!).discoveryKeyIsCurrent)
        // The hole while the key is missing: C's old key still passes A's gate (its
        // certificate is refused only in the TLS handshake).
        let before = try refusedAtTheGate(port: aPort, as: c)
        XCTAssertFalse(before.0, "A has no new key yet: its gate still takes the old one (\(before.1))")

        // The key reaches D only. A and B get it over their links, without anything else
        // happening: no new link, no new list.
        let keyFile = folders["D"]!.appendingPathComponent("discovery.key")
        try newKey.bytes.write(to: keyFile, options: .atomic)
        chmod(keyFile.path, 0o600)
        let copied = Date()
        XCTAssertTrue(d.waitFor(.discoveryKeyAdopted(sequence: 5, from: nil)), all())
        XCTAssertTrue(a.waitFor(.discoveryKeyAdopted(sequence: 5, from: "D")), all())
        let toA = Date().timeIntervalSince(copied)
        XCTAssertTrue(b.waitFor(.discoveryKeyAdopted(sequence: 5, from: "A")), all())
        let toB = Date().timeIntervalSince(copied)
        print("new discovery key copied to D → A has it in \(Int(toA * 1000)) ms, B (through A) in \(Int(toB * 1000)) ms")
        for name in ["A", "B"] {
            let held = try DeviceIdentity.load(from: folders[name]!)
            XCTAssertEqual(held.discoveryKey, newKey, "\(name) saved the new key beside its identity")
            XCTAssertTrue(held.discoveryKeyIsCurrent, name)
        }

        // The revoked device's old key no longer opens A's gate: it gets no certificate.
        let after = try refusedAtTheGate(port: aPort, as: c)
        XCTAssertTrue(after.0, after.1)
        // B still continues from A.
        b.send("continue 10")
        XCTAssertTrue(b.waitForContinued(from: "A"), b.output)

        // After a restart A reaches B itself: it proves the new key at B's gate (with only the
        // old one, as before, B's gate turned it away).
        a.terminate()
        a.waitForExit(timeout: 10)
        let (restarted, _) = try probe(folders["A"]!, ["--peer", bAddress])
        XCTAssertTrue(restarted.waitFor(.linked(peer: "B", dialed: true)), restarted.output)
    }

    /// Whether `process` published an event that `matches`, waited for while this process's
    /// loop runs (an in-process node must answer its peer meanwhile).
    @MainActor
    private static func event(of process: RunningProcess, _ matches: @escaping @Sendable (DiagnosticEvent) -> Bool) -> Bool {
        let seen = Outcome { await Task.detached { process.waitForEvent(timeout: 18, where: matches) != nil }.value }
        spin(until: { seen.done })
        return (try? seen.get()) ?? false
    }

    /// No event comes and the device still gets the key: it asks again on its retry timer.
    /// A (a real process) holds the new list without the key and has asked B too early; B (a
    /// node in this process, without an identity folder) then takes the key and — as a device
    /// from before this fix does — tells no one. A's next retry takes it from B.
    func testWithoutAnySignalTheRetryTimerGetsTheKey() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var folders: [String: URL] = [:]
        for name in ["A", "B", "C"] {
            folders[name] = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folders[name]!)
        }
        let (a, address) = try probe(folders["A"]!)
        let peer = try XCTUnwrap(PeerAddress(address))
        // Lists 1–3 named A, B and C as each was added; list 4 revokes C.
        let list = try authority.revokeDevice(named: "C")
        let newKey = try authority.discoveryKey()
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folders["B"]!), staticPeers: [peer])
            try node.start(host: "127.0.0.1", discovery: .off)
            defer { node.stop() }
            spin(until: { node.connectedPeers == ["A"] })
            node.consider(revocationData: list, from: "the test")
            // (A may name B only once list 4 is held: B's own list can arrive after it.)
            XCTAssertTrue(Self.event(of: a) { if case .revocationsAdopted(4, _?) = $0 { true } else { false } }, a.output)
            XCTAssertTrue(Self.event(of: a) { if case .discoveryKeyMissing(4, _) = $0 { true } else { false } }, a.output)
            // A's rounds are over and its retries are on the timer, the delay doubling.
            XCTAssertTrue(Self.event(of: a) { $0 == .discoveryKeyRetry(sequence: 4, afterSeconds: 2) }, a.output)
            node.trust.onNewKey = nil  // B tells no one
            XCTAssertTrue(try node.trust.adopt(discoveryKey: newKey.bytes, from: "the test"))
            let taken = Date()
            XCTAssertTrue(Self.event(of: a) { $0 == .discoveryKeyAdopted(sequence: 4, from: "B") }, a.output)
            print("no signal: A's retry took the key \(Int(Date().timeIntervalSince(taken) * 1000)) ms after B had it")
        }
        XCTAssertEqual(try DeviceIdentity.load(from: folders["A"]!).discoveryKey, newKey)
    }
}
