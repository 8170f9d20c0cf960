import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Continuation streams relayed by two agents (`batond`, static peers on loopback): answers of
/// every size around the relay's frames (64 KiB), its turns (256 KiB) and TLS records (16 KiB)
/// arrive whole, in order and ended; and when one end breaks, the other end's read fails,
/// never ends as if the stream were whole. All of it runs on each agent's loop, none on Swift's pool.
final class AgentRelayedStreamTests: AgentTestCase {
    /// One continued activity, then one stream per size, each read to its end by B's app and
    /// checked byte by byte (`pattern intact`): nothing lost, doubled or reordered where
    /// frames, TLS records or the relay's reads split the bytes.
    func testStreamsOfEverySizeAroundTheFramesComeThroughWholeAndEnd() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        let probe = productURL("DeviceProbe").path
        let offering = try start(probe, ["unused", "--ok", "--streams", "--agent", socket("a.sock")])
        XCTAssertTrue(offering.waitForJoinedAgent(at: socket("a.sock")), offering.output)
        let continuing = try start(probe, ["unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe"), continuing.output)
        let piece = 64 * 1024
        for size in [0, 1, 16_384, 16_385, piece - 1, piece, piece + 1, 4 * piece, 4 * piece + 7, 3_000_001] {
            continuing.send("streams \(size)")
            XCTAssertNotNil(continuing.waitForLine(containing: "stream received \(size), pattern intact", timeout: 30),
                            "size \(size): " + continuing.output)
        }
        XCTAssertFalse(continuing.output.contains("stream failed"), continuing.output)
        XCTAssertFalse(continuing.output.contains("wrong byte"), continuing.output)
        // Links, a continuation and its streams, all on each agent's loop, and in each app on its
        // loop too (B's reads its stream with `for try await` on the main actor): no thread of
        // Swift's pool anywhere.
        XCTAssertEqual(swiftPoolThreads(of: agentA), [], "device A's agent")
        XCTAssertEqual(swiftPoolThreads(of: agentB), [], "device B's agent")
        XCTAssertEqual(swiftPoolThreads(of: offering), [], "the app on A")
        XCTAssertEqual(swiftPoolThreads(of: continuing), [], "the app on B, reading with for try await")
    }

    /// Streams through agents are opened pipelined on both hops (the app's
    /// `OpenStreamsPipelined`, then the link's `OpenStreams`): the request B's app writes at
    /// once still reaches A's app, and when A's app does not take streams (its activity does not
    /// support them) B's app's stream fails with `featureUnsupported`, the Handoff code of the
    /// refusal, never reading as an empty stream; the app keeps running.
    func testARefusedPipelinedOpenFailsTheAppsStreamWithItsHandoffCode() throws {
        let (_, _, _) = try twoLinkedAgents()
        let probe = productURL("DeviceProbe").path
        let offering = try start(probe, ["unused", "--ok", "--agent", socket("a.sock")])
        XCTAssertTrue(offering.waitForJoinedAgent(at: socket("a.sock")), offering.output)
        let continuing = try start(probe, ["unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe"), continuing.output)
        continuing.send("streams 1000")
        let unsupported = CocoaError.Code.featureUnsupported.rawValue
        XCTAssertNotNil(continuing.waitForLine(containing: "stream failed: code \(unsupported),", timeout: 30), continuing.output)
        XCTAssertFalse(continuing.output.contains("stream received"), continuing.output)
        continuing.send("ping")
        XCTAssertNotNil(continuing.waitForLine(containing: "pong"), continuing.output)
    }

    /// The offering app dies half way through a 16 MB answer: its agent sees its connection
    /// end without the end frame and breaks the stream to B, whose agent breaks its app's
    /// connection the same way; B's app fails with userActivityConnectionUnavailable instead of
    /// receiving 8 MB as if that were all, and keeps running.
    func testAnAppDyingMidStreamFailsTheStreamOnTheOtherDevice() throws {
        let (_, _, _) = try twoLinkedAgents()
        let probe = productURL("DeviceProbe").path
        let offering = try start(probe, ["unused", "--ok", "--stream-die", "--agent", socket("a.sock")])
        XCTAssertTrue(offering.waitForJoinedAgent(at: socket("a.sock")), offering.output)
        let continuing = try start(probe, ["unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe"), continuing.output)
        continuing.send("streams \(16 * 1024 * 1024)")
        XCTAssertNotNil(offering.waitForLine(containing: "dying mid-stream"), offering.output)
        let unavailable = CocoaError.Code.userActivityConnectionUnavailable.rawValue
        XCTAssertNotNil(continuing.waitForLine(containing: "stream failed: code \(unavailable),", timeout: 60), continuing.output)
        XCTAssertFalse(continuing.output.contains("stream received"), continuing.output)
        continuing.send("ping")
        XCTAssertNotNil(continuing.waitForLine(containing: "pong"), continuing.output)
    }
}
