@testable @_spi(Testing) import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// Issue 31: two devices that dial each other at the same moment (both starting, each with the
/// other as a static peer) end with one link, the same connection on both sides — the one the
/// device whose identifier sorts first dialed — decided by each side alone, without asking
/// the other.
final class SimultaneousDialTests: TrustTestCase {
    /// Which connection reaches which side first, and whether a side's first call or the other
    /// connection's arrival is handled first, varies from run to run: several rounds try more
    /// of the orders (one round once showed an unlinked event).
    func testTwoDevicesDialingEachOtherAtOnceKeepTheSameOneLink() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = try authority.issueDevice(named: "A"), b = try authority.issueDevice(named: "B")
        for round in 1...12 {
            try dialAtOnce(a, b, round: round)
        }
    }

    private func dialAtOnce(_ a: DeviceIdentity, _ b: DeviceIdentity, round: Int) throws {
        try MainActor.assumeIsolated {
            let portA = try FreePort.tcp(), portB = try FreePort.tcp()
            let nodeA = try ContinuityNode(identity: a, staticPeers: [PeerAddress(host: "127.0.0.1", port: portB)], provider: SilentActivityProvider())
            let nodeB = try ContinuityNode(identity: b, staticPeers: [PeerAddress(host: "127.0.0.1", port: portA)], provider: SilentActivityProvider())
            var finished = 0
            nodeA.onFirstDialsFinished = { finished += 1 }
            nodeB.onFirstDialsFinished = { finished += 1 }
            var unlinked: [DiagnosticEvent] = []
            let watches = [nodeA, nodeB].map { node in
                node.diagnostics.observe { if case .unlinked = $0 { unlinked.append($0) } }
            }
            defer { for watch in watches { watch.cancel() } }
            // Both listen before either dial starts (a dial starts at the loop's next turn).
            try nodeA.start(host: "127.0.0.1", port: portA, discovery: .off)
            try nodeB.start(host: "127.0.0.1", port: portB, discovery: .off)
            defer {
                nodeA.stop()
                nodeB.stop()
            }
            spin(until: { finished == 2 })
            // Each side's dial has finished, and so has what the other side's dial brought.
            spin(until: { nodeA.linkStatus.count == 1 && nodeB.linkStatus.count == 1
                              && nodeA.linkStatus[0].dialedByThisDevice != nodeB.linkStatus[0].dialedByThisDevice })
            // A connection the first device keeps open for the other to close is closed by
            // the device that dialed it, once the first device's connection became its link.
            spin(until: { nodeA.links.supersededCount == 0 && nodeB.links.supersededCount == 0 })
            XCTAssertEqual(nodeA.links.supersededExpired + nodeB.links.supersededExpired, 0,
                           "round \(round): the device that dialed the connection not kept closed it")
            drainIdle()
            let first = a.identifier < b.identifier ? nodeA : nodeB, second = first === nodeA ? nodeB : nodeA
            XCTAssertEqual(first.linkStatus.map(\.dialedByThisDevice), [true], "round \(round): the device whose identifier sorts first dialed the link kept")
            XCTAssertEqual(second.linkStatus.map(\.dialedByThisDevice), [false], "round \(round): and the other device kept the same connection")
            XCTAssertEqual(nodeA.connectedPeers, ["B"])
            XCTAssertEqual(nodeB.connectedPeers, ["A"])
            XCTAssertEqual(unlinked, [], "round \(round): the connection not kept went without either side dropping a link")
        }
    }
}
