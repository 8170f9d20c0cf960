@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// `ContinuationHistory` records every step of a continuation in order, in the record it was
/// given for, finds records by id however many came and went, and tells its observers (and
/// those of `didChangeNotification`) after each step.
final class ContinuationHistoryTests: BatonTestCase {
    /// Every step lands in its own record, in order, while other records are begun beside it
    /// and the oldest leave the ring; a step for a record that has left changes nothing.
    func testEveryStepLandsInItsRecordWhileTheRingTurns() {
        MainActor.assumeIsolated {
            let history = ContinuationHistory()
            let first = history.begin(activityType: "first")
            var ids: [UInt64] = []
            for index in 0..<(ContinuationHistory.capacity + 7) {
                let id = history.begin(activityType: "t\(index)", device: "d\(index)", sequence: UInt64(index))
                ids.append(id)
                history.record(.willContinue, in: id)
                history.record(.payloadFetched(bytes: index), in: id)
                if let earlier = ids.dropLast().last { history.record(.continued, in: earlier) }
            }
            history.record(.continued, in: first)
            XCTAssertFalse(history.records.contains { $0.id == first }, "the first record left the ring")
            XCTAssertEqual(history.records.count, ContinuationHistory.capacity)
            XCTAssertEqual(history.records.map(\.id), Array(ids.suffix(ContinuationHistory.capacity)))
            for record in history.records.dropLast() {
                let index = Int(record.activityType.dropFirst())!
                XCTAssertEqual(record.steps.map(\.kind), [.asked, .willContinue, .payloadFetched(bytes: index), .continued], "\(record)")
            }
            XCTAssertEqual(history.records.last?.steps.map(\.kind), [.asked, .willContinue, .payloadFetched(bytes: ContinuationHistory.capacity + 6)])
            XCTAssertTrue(history.records.allSatisfy { $0.steps.map(\.time) == $0.steps.map(\.time).sorted() }, "steps in time order")

            history.removeAll()
            history.record(.continued, in: ids.last!)
            XCTAssertTrue(history.records.isEmpty, "a step of a record forgotten adds nothing")
            let next = history.begin(activityType: "after")
            XCTAssertEqual(next, ids.last! + 1, "ids go on after removeAll")
            history.record(.willContinue, in: next)
            XCTAssertEqual(history.records.map { $0.steps.map(\.kind) }, [[.asked, .willContinue]])
        }
    }

    /// An observer gets the record after each step, one call per step; a failure's long
    /// reason is cut to `maximumReason` bytes; after cancel nothing more comes.
    func testAnObserverGetsEachStepAndALongReasonIsCut() {
        MainActor.assumeIsolated {
            let history = ContinuationHistory()
            var seen: [ContinuationRecord] = []
            let observation = history.observe { seen.append($0) }
            let id = history.begin(activityType: "observed")
            history.record(.willContinue, in: id)
            history.record(.failed(code: 4608, reason: String(repeating: "é", count: ContinuationHistory.maximumReason)), in: id)
            XCTAssertEqual(seen.map { $0.steps.count }, [1, 2, 3])
            guard case .failed(let code, let reason)? = seen.last?.steps.last?.kind else { return XCTFail("\(seen)") }
            XCTAssertEqual(code, 4608)
            XCTAssertLessThanOrEqual(reason.utf8.count, ContinuationHistory.maximumReason)
            XCTAssertEqual(history.records.last, seen.last)
            observation.cancel()
            history.record(.wasContinuedSent, in: id)
            XCTAssertEqual(seen.count, 3, "nothing after cancel")
            XCTAssertEqual(history.records.last?.steps.count, 4, "still recorded with nobody observing")
        }
    }

    /// `didChangeNotification` is posted, with the history as its object, after each step
    /// recorded while the history is observed, and not while nobody observes it (a post costs
    /// microseconds on the warm path even with no observer).
    func testTheChangeNotificationIsPostedForEachStepWhileObserved() {
        MainActor.assumeIsolated {
            let history = ContinuationHistory()
            let posted = PostedNames()
            let token = NotificationCenter.default.addObserver(forName: ContinuationHistory.didChangeNotification, object: history,
                                                               queue: nil) { note in posted.names.append(note.name) }
            defer { NotificationCenter.default.removeObserver(token) }
            let unobserved = history.begin(activityType: "unobserved")
            history.record(.willContinue, in: unobserved)
            XCTAssertEqual(posted.names.count, 0, "nobody observes the history")

            let observation = history.observe { _ in }
            let id = history.begin(activityType: "posted")
            history.record(.willContinue, in: id)
            history.record(.continued, in: id)
            XCTAssertEqual(posted.names.count, 3)
            observation.cancel()
            history.record(.wasContinuedSent, in: id)
            XCTAssertEqual(posted.names.count, 3)
        }
    }

    /// An inspection observer hears of a continuation's step: the snapshot's history changed.
    func testAnInspectionObserverHearsOfAStep() {
        MainActor.assumeIsolated {
            Application.shared.continuationHistory.removeAll()
            drainIdle()
            var seen: [ApplicationInspection] = []
            let observation = Application.shared.observeInspection { seen.append($0) }
            defer { observation.cancel() }
            let id = Application.shared.continuationHistory.begin(activityType: "com.example.inspected")
            spin(until: { seen.last?.continuations.last?.steps.count == 1 })
            Application.shared.continuationHistory.record(.willContinue, in: id)
            spin(until: { seen.last?.continuations.last?.steps.map(\.kind) == [.asked, .willContinue] })
            XCTAssertEqual(seen.last?.continuations.last?.activityType, "com.example.inspected")
        }
    }
}
