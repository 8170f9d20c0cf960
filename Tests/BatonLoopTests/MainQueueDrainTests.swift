@testable import BatonLoop
import Dispatch
import XCTest

/// How the loop drains `DispatchQueue.main` (`MainQueueBridge`): many blocks per wake-up.
final class MainQueueDrainTests: XCTestCase {
    /// A chain of blocks, each queuing the next, runs one block per libdispatch drain (a drain
    /// runs only the blocks queued before it began); one wake-up of the loop drains
    /// `drainRounds` times, reads the eventfd, and drains once more, so 2,000 blocks take about
    /// 31 wake-ups, where a drain per wake-up would take 1,000 or more.
    func testAChainOfBlocksRunsInFewWakeUps() {
        MainActor.assumeIsolated {
            let blocks = 2000
            let ran = RanBlocks()
            let before = MainQueueBridge.drains.load(ordering: .relaxed)
            mainQueueChain(blocks, ran)
            XCTAssertTrue(MainLoop.run(until: { ran.count == blocks }, timeout: .seconds(60)))
            let wakeUps = MainQueueBridge.drains.load(ordering: .relaxed) - before
            // A stray block of an earlier test may take a wake-up or two of its own.
            XCTAssertLessThanOrEqual(wakeUps, blocks / (MainQueueBridge.drainRounds + 1) + 3,
                                     "\(wakeUps) wake-ups for a chain of \(blocks) main-queue blocks")
        }
    }
}

/// How many blocks of the chain ran.
@MainActor
private final class RanBlocks {
    var count = 0
}

/// A chain of `remaining` `DispatchQueue.main` blocks, each queuing the next.
private func mainQueueChain(_ remaining: Int, _ ran: RanBlocks) {
    DispatchQueue.main.async {
        MainActor.assumeIsolated {
            ran.count += 1
            if remaining > 1 { mainQueueChain(remaining - 1, ran) }
        }
    }
}
