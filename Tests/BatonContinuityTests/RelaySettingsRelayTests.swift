@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 29: relay settings reach every device the way a revocation does (they travel in the
/// group's signed list): a device without them gets them from a linked peer when they link,
/// and a newer setting written beside one linked device reaches the other at once. Real
/// processes (DeviceProbe) on loopback.
final class RelaySettingsRelayTests: ProcessTestCase {
    private func probe(_ folder: URL, _ arguments: [String] = []) throws -> (RunningProcess, String) {
        let process = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"] + arguments)
        processes.append(process)
        return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
    }

    func testADeviceWithoutTheSettingsGetsThemFromALinkedPeer() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let aFolder = root.appendingPathComponent("A"), bFolder = root.appendingPathComponent("B")
        try authority.issueDevice(named: "A").write(to: aFolder)
        try authority.issueDevice(named: "B", updating: [aFolder]).write(to: bFolder)
        let settings = RelaySettings(turn: [try TURNServer(uri: "turn:turn.example.net")],
                                     broker: try BrokerAddress(uri: "mqtts://broker.example.net"),
                                     turnSecret: RelaySettings.generatedSecret())
        let first = try authority.setRelaySettings(settings, updating: [bFolder])
        let sequence = try authority.revocationList().sequence
        XCTAssertNil(try RelaySettings.load(from: aFolder), "only B holds them")

        let (a, address) = try probe(aFolder)
        let (b, _) = try probe(bFolder, ["--peer", address])
        XCTAssertTrue(a.waitFor(.revocationsAdopted(sequence: sequence, from: "B")), a.output)
        XCTAssertEqual(try RelaySettings.load(from: aFolder), first, "saved beside A's identity")
        XCTAssertEqual(mode(aFolder.appendingPathComponent("revocations")), 0o600, "the secret is in it")
        XCTAssertTrue(b.waitForNearby(from: "A"), b.output)

        // Linked: a newer setting written beside B reaches A at once (RevocationsChanged).
        var changed = settings
        changed.turn.append(try TURNServer(uri: "turns:turn.example.net"))
        let second = try authority.setRelaySettings(changed, updating: [bFolder])
        XCTAssertTrue(b.waitFor(.revocationsAdopted(sequence: sequence + 1, from: nil)), b.output)
        XCTAssertTrue(a.waitFor(.revocationsAdopted(sequence: sequence + 1, from: "B")), a.output)
        XCTAssertEqual(try RelaySettings.load(from: aFolder), second)
        XCTAssertEqual(second.version, first.version + 1)
    }
}
