import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 31: a device that starts dials the group's devices it can find at once rather than
/// wait to be dialed — here, the address it last linked over, kept beside its identity.
final class AgentColdStartTests: AgentTestCase {
    /// B links with A through its static peer, then stops; started again with no peer at all,
    /// it dials A itself at once, from the address it last linked over (A does not know where
    /// B is: without that, nothing would link them).
    func testARestartedAgentDialsTheAddressItLastLinkedOver() throws {
        let folders = try devices("A", "B")
        let (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let (firstB, _) = try agent(folders[1], socket: socket("b.sock"), peers: [address])
        XCTAssertTrue(firstB.waitFor(.linked(peer: "A", dialed: true)), firstB.output)
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false)), agentA.output)
        firstB.terminate()
        XCTAssertEqual(firstB.waitForExit(), 0, firstB.output)
        XCTAssertTrue(agentA.waitForUnlink(from: "B"), agentA.output)

        // What B keeps: A's address, in a file only its user may read.
        let file = URL(fileURLWithPath: folders[1]).appendingPathComponent("last-linked")
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "\(address)\n")
        var info = stat()
        XCTAssertEqual(stat(file.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)

        let (againB, _) = try agent(folders[1], socket: socket("b.sock"))
        XCTAssertTrue(againB.waitFor(.linked(peer: "A", dialed: true)), "the restarted device dialed: \(againB.output)")
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false), occurrence: 2), agentA.output)
    }

    /// The file is a hint, not trusted: lines that are not addresses are skipped, an address
    /// where nothing of the group answers fails quietly, and the device still links through
    /// the addresses that work.
    func testAddressesLastLinkedOverAreOnlyHints() throws {
        let folders = try devices("A", "B")
        let (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let closed = try XCTUnwrap(PeerAddress("127.0.0.1:1"))
        let file = URL(fileURLWithPath: folders[1]).appendingPathComponent("last-linked")
        try Data("not an address\n\(closed)\n\u{1b}[31m:9\n\(address)\n".utf8).write(to: file)
        let (agentB, _) = try agent(folders[1], socket: socket("b.sock"))
        XCTAssertTrue(agentB.waitFor(.linked(peer: "A", dialed: true)), agentB.output)
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false)), agentA.output)
    }
}
