@testable import Baton
import BatonTestSupport
import XCTest

/// A nearby source whose originating device acknowledges `Continued` after `delay`, never
/// (nil), or refuses it (`refuses`). It writes what happens into `events`, beside the app
/// delegate's.
@MainActor
private final class AcknowledgingSource: NearbyActivitySource {
    let payload: Data
    let delay: Duration?
    let refuses: Bool
    var record: (String) -> Void = { _ in }

    init(payload: Data, delay: Duration?, refuses: Bool = false) {
        self.payload = payload
        self.delay = delay
        self.refuses = refuses
    }

    func fetchPayload(of activity: NearbyActivity) async throws -> Data { payload }

    func confirmContinued(_ activity: NearbyActivity) async throws {
        record("Continued sent")
        if refuses { throw CocoaError(.userActivityConnectionUnavailable) }
        let answered = await AcknowledgingSource.answer(after: delay)
        record(answered ? "acknowledged" : "cancelled")
    }

    /// Resumes after `delay` (true), or when the task is cancelled first (false).
    private static func answer(after delay: Duration?) async -> Bool {
        let wait = Wait()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (resume: CheckedContinuation<Bool, Never>) in
                wait.resume = resume
                if let delay { wait.timer = MainLoop.after(delay) { wait.end(true) } }
            }
        } onCancel: {
            Task { @MainActor in wait.end(false) }
        }
    }

    @MainActor
    private final class Wait {
        var resume: CheckedContinuation<Bool, Never>?
        var timer: LoopSource?
        func end(_ answered: Bool) {
            timer?.cancel()
            resume?.resume(returning: answered)
            resume = nil
        }
    }
}

private let shapeType = "com.example.myapp.create-shape"

/// Continuing a nearby activity finishes only once the originating device has acknowledged
/// `Continued` — so an app (`baton continue`) that quits when it has continued never quits
/// before the other device was told — and that wait is bounded.
final class ContinuedAcknowledgementTests: BatonTestCase {
    /// Launches the app with the Shapes manifest, `source` as its nearby source; continues an
    /// activity from "phone" and returns, once the completion handler ran, the delegate whose
    /// events are all of it in order ("finished": the completion handler).
    @MainActor
    private static func continueNearby(from source: AcknowledgingSource) -> HandoffDelegate {
        let delegate = HandoffDelegate()
        Application.shared.manifest = shapesManifest
        Application.shared.delegate = delegate
        Application.shared.finishLaunching()
        Application.shared.nearbySource = source
        source.record = { delegate.events.append($0) }
        let entry = NearbyActivity(device: "phone", sequence: 1, activityType: shapeType, title: nil,
                                   appID: "com.example.shapes", teamIdentifier: "TEAM1")
        var finished = false
        Application.shared.continueNearbyActivity(entry) {
            delegate.events.append("finished")
            finished = true
        }
        spin(until: { finished })
        return delegate
    }

    func testTheContinuationFinishesOnlyOnceTheOriginHasAcknowledged() throws {
        try MainActor.assumeIsolated {
            let source = AcknowledgingSource(payload: try shapePayload(), delay: .milliseconds(200))
            XCTAssertEqual(Self.continueNearby(from: source).events,
                           ["will \(shapeType)", "continue \(shapeType)", "Continued sent", "acknowledged", "finished"])
        }
    }

    func testAnOriginThatNeverAcknowledgesIsGivenUpAfterTheBound() throws {
        try MainActor.assumeIsolated {
            let saved = Application.continuedAcknowledgementTimeout
            Application.continuedAcknowledgementTimeout = .milliseconds(300)
            defer { Application.continuedAcknowledgementTimeout = saved }
            let source = AcknowledgingSource(payload: try shapePayload(), delay: nil)
            let delegate = Self.continueNearby(from: source)
            XCTAssertEqual(CapturedLog.shared.messages(mentioning: "phone did not acknowledge").count, 1)
            spin(until: { delegate.events.contains("cancelled") })  // the call given up is cancelled
            XCTAssertEqual(Array(delegate.events.prefix(3)), ["will \(shapeType)", "continue \(shapeType)", "Continued sent"])
            XCTAssertEqual(delegate.events.dropFirst(3).sorted(), ["cancelled", "finished"])
        }
    }

    func testARefusedAcknowledgementIsLoggedAndTheContinuationStillFinishes() throws {
        try MainActor.assumeIsolated {
            let source = AcknowledgingSource(payload: try shapePayload(), delay: nil, refuses: true)
            XCTAssertEqual(Self.continueNearby(from: source).events, ["will \(shapeType)", "continue \(shapeType)", "Continued sent", "finished"])
            XCTAssertEqual(CapturedLog.shared.messages(mentioning: "could not tell phone").count, 1)
        }
    }

    /// A continuation that fails tells the delegate, then finishes; nothing is confirmed.
    func testAFailedContinuationFinishesWithoutConfirming() throws {
        MainActor.assumeIsolated {
            let source = AcknowledgingSource(payload: Data("junk".utf8), delay: .zero)
            XCTAssertEqual(Self.continueNearby(from: source).events, ["will \(shapeType)", "fail \(shapeType)", "finished"])
        }
    }
}
