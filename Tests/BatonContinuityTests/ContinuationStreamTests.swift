@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Keeps the activity a continuation delivered.
@MainActor
final class ContinuedActivityRecorder: ApplicationDelegate {
    var activity: UserActivity?
    var failure: CocoaError?
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        activity = userActivity
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        failure = error as? CocoaError
    }
}

/// handoff-programming-guide, "Using Continuation Streams": the continuing app calls
/// getContinuationStreams on the continued activity; the originating activity's delegate gets
/// userActivity(_:didReceive:outputStream:); data written on one side is read on the other,
/// request then response. Here the originating app is a real process (`DeviceProbe`), and
/// this process continues its activity and opens the streams.
final class ContinuationStreamTests: TrustTestCase {
    nonisolated(unsafe) private var probe: RunningProcess?
    nonisolated(unsafe) private var node: ContinuityNode?

    override func tearDownWithError() throws {
        let node = self.node
        MainActor.assumeIsolated { node?.stop() }
        probe?.terminate()
        try super.tearDownWithError()
    }

    /// Starts the probe with `flags`, continues its activity here; returns the continued activity.
    private func continueProbe(_ flags: [String]) throws -> UserActivity {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        let b = try authority.issueDevice(named: "B")
        let probe = try RunningProcess(product: "DeviceProbe", [a.path] + flags)
        self.probe = probe
        let address = try XCTUnwrap(probe.listeningAddress(), probe.output)
        let (activity, node) = try MainActor.assumeIsolated { () throws -> (UserActivity, ContinuityNode) in
            let recorder = ContinuedActivityRecorder()
            launchAsProbeApp(recorder)
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            Application.shared.continueNearbyActivity(Application.shared.nearbyActivities[0])
            spin(until: { recorder.activity != nil || recorder.failure != nil })
            return (try XCTUnwrap(recorder.activity, "\(String(describing: recorder.failure))"), node)
        }
        self.node = node
        return activity
    }

    /// Runs `body` as a main-actor task on the GLib loop and returns its result.
    private func run<T: Sendable>(_ body: @escaping @MainActor () async throws -> T) throws -> T {
        try MainActor.assumeIsolated {
            var outcome: Result<T, Error>?
            Task { @MainActor in
                do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            }
            spin(until: { outcome != nil })
            return try XCTUnwrap(outcome).get()
        }
    }

    func testARequestGetsAManyMegabyteResponse() throws {
        let activity = try continueProbe(["--ok", "--streams"])
        let size = 20 * 1024 * 1024
        let (received, ok) = try run {
            let (input, output) = try await activity.continuationStreams()
            try await output.write(Data("send \(size)".utf8))
            try await output.close()
            var count = 0, matches = true
            for try await chunk in input {
                for (offset, byte) in chunk.enumerated() where byte != UInt8((count + offset) % 251) { matches = false; break }
                count += chunk.count
            }
            return (count, matches)
        }
        XCTAssertEqual(received, size)
        XCTAssertTrue(ok, "the bytes arrive in order, unchanged")
        XCTAssertNotNil(probe?.waitForLine(containing: "streamed \(size)"), probe?.output ?? "")
    }

    /// The completion-handler form, as in the guide's Listing 2-10.
    func testGetContinuationStreamsCallsItsCompletionHandler() throws {
        let activity = try continueProbe(["--ok", "--streams"])
        let text = try run {
            let (input, output) = try await withCheckedThrowingContinuation { continuation in
                activity.getContinuationStreams { input, output, error in
                    if let input, let output { continuation.resume(returning: (input, output)) } else { continuation.resume(throwing: error!) }
                }
            }
            try await output.write(Data("send 1000".utf8))
            try await output.close()
            return try await input.readToEnd(limit: 10_000).count
        }
        XCTAssertEqual(text, 1000)
    }

    func testAnActivityWithoutStreamSupportRefusesThem() throws {
        let activity = try continueProbe(["--ok"])
        XCTAssertThrowsError(try run { try await activity.continuationStreams() }) { error in
            XCTAssertEqual((error as? CocoaError)?.code, .featureUnsupported, "\(error)")
        }
        XCTAssertFalse(probe?.output.contains("streams opened") ?? true)
    }

    func testAnActivityContinuedLocallyHasNoStreams() throws {
        let activity = MainActor.assumeIsolated { () -> UserActivity in
            let activity = UserActivity(activityType: "com.example.probe.editing")
            activity.supportsContinuationStreams = true
            return activity
        }
        XCTAssertThrowsError(try run { try await activity.continuationStreams() }) { error in
            XCTAssertEqual((error as? CocoaError)?.code, .featureUnsupported, "\(error)")
        }
    }

    /// The originating app dies half way through its answer: the continuing side's stream ends
    /// with an error (never a hang, never a silent short read), and this app goes on.
    func testThePeerDyingMidStreamEndsTheStreamWithAnError() throws {
        let activity = try continueProbe(["--ok", "--stream-die"])
        let outcome: Result<Int, Error> = try run {
            let (input, output) = try await activity.continuationStreams()
            try await output.write(Data("send \(8 * 1024 * 1024)".utf8))
            try await output.close()
            var count = 0
            do {
                for try await chunk in input { count += chunk.count }
                return .success(count)
            } catch {
                return .failure(error)
            }
        }
        guard case .failure = outcome else { return XCTFail("the stream ended cleanly: \(outcome)") }
        XCTAssertNotNil(probe?.waitForLine(containing: "dying mid-stream"), probe?.output ?? "")
        XCTAssertEqual(probe?.waitForExit(), 4)
    }

    /// The originating side closes the streams at once: the continuing side's reads end and its
    /// writes fail; nothing waits forever.
    func testTheOtherSideClosingEndsBothStreams() throws {
        let activity = try continueProbe(["--ok", "--stream-close"])
        let (read, writeFailed) = try run {
            let (input, output) = try await activity.continuationStreams()
            var read: Data?
            do { read = try await input.read() } catch { read = nil }
            var writeFailed = false
            do {
                for _ in 0..<64 { try await output.write(Data(count: 64 * 1024)) }
            } catch { writeFailed = true }
            return (read, writeFailed)
        }
        XCTAssertTrue(read == nil || read == Data(), "no data, only the end: \(String(describing: read))")
        XCTAssertTrue(writeFailed)
    }

    /// This side closing its streams while a read is pending ends that read with an error.
    func testClosingLocallyEndsAPendingRead() throws {
        let activity = try continueProbe(["--ok", "--streams"])
        let failed = try run {
            let (input, _) = try await activity.continuationStreams()
            MainLoop.idle { input.close() }  // while the read below waits for a request that never comes
            do { _ = try await input.read() } catch { return true }
            return false
        }
        XCTAssertTrue(failed)
    }

    /// An originating device that refuses `OpenStreams`: the continuing side's streams, handed
    /// out before the answer (their request already written behind the call), fail with the
    /// Handoff error of the refusal; they never read as empty, and their state is freed.
    func testARefusedStreamFailsInsteadOfReadingEmpty() throws {
        let outcome = try continueFromOrigin(that: .refuses, acceptanceTimeout: .seconds(10))
        XCTAssertEqual(outcome.error?.code, .userActivityHandoffFailed, "\(String(describing: outcome.error))")
        XCTAssertEqual(outcome.refusals, [], "the request pipelined behind the refused call is dropped, not a violation")
        XCTAssertEqual(outcome.streamsLeft, 0, "the refused stream is forgotten")
    }

    /// An originating device that never answers `OpenStreams`: the streams fail once
    /// `streamAcceptanceTimeout` has passed.
    func testAStreamNeverAcceptedTimesOut() throws {
        let outcome = try continueFromOrigin(that: .staysSilent, acceptanceTimeout: .seconds(1))
        XCTAssertEqual(outcome.error?.code, .userActivityRemoteApplicationTimedOut, "\(String(describing: outcome.error))")
        XCTAssertEqual(outcome.streamsLeft, 0)
    }

    /// The request follows `OpenStreams` in the same flight: `continuationStreams()` returns
    /// before the originating device answers, so the continuing app writes at once. Here the
    /// origin reads the whole request before it answers the call at all, then responds.
    func testTheRequestFollowsOpenStreamsBeforeItsAnswer() throws {
        let outcome = try continueFromOrigin(that: .readsTheRequestBeforeAnswering, acceptanceTimeout: .seconds(30))
        XCTAssertNil(outcome.error)
        XCTAssertEqual(outcome.response, "got request")
        XCTAssertEqual(outcome.refusals, [])
    }

    /// A peer that sends more than the credit it was given (one window, while this side reads
    /// nothing) breaks the protocol: this device closes the link, published as a refusal, and
    /// its stream fails instead of buffering the flood.
    func testAPeerSendingPastTheWindowHasItsLinkClosed() throws {
        let outcome = try continueFromOrigin(that: .floods, acceptanceTimeout: .seconds(10))
        XCTAssertEqual(outcome.refusals, [.malformedMessage])
    }

    /// A peer that sends on a stream never opened on the link breaks the protocol: the link
    /// is closed, published as a refusal.
    func testAPeerSendingOnAnUnknownStreamHasItsLinkClosed() throws {
        let outcome = try continueFromOrigin(that: .sendsOnAnUnknownStream, acceptanceTimeout: .seconds(10))
        XCTAssertEqual(outcome.refusals, [.malformedMessage])
    }

    /// How streams to a misbehaving origin ended: the error the continuing side read (nil: none,
    /// or not a CocoaError), the response it read, the refusals this node published, and how
    /// many streams its link still had open after.
    private struct OriginOutcome {
        var error: CocoaError?
        var response: String?
        var refusals: [DiagnosticEvent.RefusalReason] = []
        var streamsLeft = 0
    }

    /// Continues the activity of an in-process origin that misbehaves as `behaviour` on
    /// `OpenStreams`, opens streams, writes a request and reads.
    private func continueFromOrigin(that behaviour: StreamRefusingOrigin.Behaviour,
                                    acceptanceTimeout: Duration) throws -> OriginOutcome {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = try authority.issueDevice(named: "A"), b = try authority.issueDevice(named: "B")
        return try MainActor.assumeIsolated {
            let origin = StreamRefusingOrigin(identity: a, behaviour: behaviour)
            let address = try origin.start()
            defer { origin.stop() }
            let recorder = ContinuedActivityRecorder()
            launchAsProbeApp(recorder)
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            node.streamAcceptanceTimeout = acceptanceTimeout
            var outcome = OriginOutcome()
            let observation = node.diagnostics.observe { event in
                if case .refused(_, let reason) = event { outcome.refusals.append(reason) }
            }
            defer { observation.cancel() }
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let nearby = Application.shared.nearbyActivities[0]
            Application.shared.continueNearbyActivity(nearby)
            spin(until: { recorder.activity != nil || recorder.failure != nil })
            let activity = try XCTUnwrap(recorder.activity, "\(String(describing: recorder.failure))")
            let opened = Outcome { try await activity.continuationStreams() }
            spin(until: { opened.done })
            guard case .success(let (input, output))? = opened.value else {
                outcome.error = opened.error as? CocoaError
                return outcome
            }
            if behaviour == .floods || behaviour == .sendsOnAnUnknownStream {
                // Opened, then the origin misbehaves (this side reads nothing meanwhile): the
                // link is refused, and the stream fails rather than read what the origin sent.
                spin(until: { !outcome.refusals.isEmpty })
            }
            let read = Outcome { () async throws -> String in
                if behaviour != .floods && behaviour != .sendsOnAnUnknownStream {
                    try await output.write(Data("request".utf8))
                    try await output.close()
                }
                return String(decoding: try await input.readToEnd(limit: 100 * 1024 * 1024), as: UTF8.self)
            }
            spin(until: { read.done })
            XCTAssertTrue(origin.streamRequests > 0, "OpenStreams reached the origin")
            switch read.value {
            case .success(let response)?:
                if behaviour != .readsTheRequestBeforeAnswering { XCTFail("the streams opened and read \(response.count) bytes") }
                outcome.response = response
            default:
                outcome.error = read.error as? CocoaError
            }
            spin(until: { node.links.link(shownAs: nearby.device)?.streams.count ?? 0 == 0 })
            outcome.streamsLeft = node.links.link(shownAs: nearby.device)?.streams.count ?? 0
            return outcome
        }
    }
}

/// An originating device in this process that advertises an activity supporting continuation
/// streams, then answers `OpenStreams` unusually: it refuses it (`refuses`), takes the id but
/// never answers (`staysSilent`), takes the stream and reads the whole request before it answers, then
/// responds `got <request>` (`readsTheRequestBeforeAnswering`), or opens the stream and then
/// sends a window and more without waiting for credit (`floods`) or sends on a stream never
/// opened (`sendsOnAnUnknownStream`).
@MainActor
final class StreamRefusingOrigin: InProcessDevice {
    enum Behaviour { case refuses, staysSilent, readsTheRequestBeforeAnswering, floods, sendsOnAnUnknownStream }
    let behaviour: Behaviour
    private(set) var streamRequests = 0
    private var held: [MethodCall] = []

    init(identity: DeviceIdentity, behaviour: Behaviour) {
        self.behaviour = behaviour
        super.init(identity: identity, title: "Streams")
    }

    override func serve(_ call: MethodCall, with service: DeviceService) {
        if call.method == DeviceMethod.Member.openStreams.rawValue {
            streamRequests += 1
            if behaviour == .staysSilent {
                // It takes the id (as every device does, in order), so what was pipelined behind
                // the call is dropped, but never answers.
                if case .openStreams(_, let id)? = try? DeviceMethod(call), let streams = service.streams, !streams.admits(id) { return }
                return held.append(call)
            }
            if behaviour == .readsTheRequestBeforeAnswering, case .openStreams(let sequence, let id)? = try? DeviceMethod(call),
               let streams = service.streams, streams.admits(id) {
                return answerAfterTheRequest(call, sequence: sequence, stream: streams.accept(id, idleTimeout: .seconds(30)))
            }
        }
        super.serve(call, with: service)
    }

    /// Reads `stream` to its end, then answers `call` (the open), then responds on the stream.
    private func answerAfterTheRequest(_ call: MethodCall, sequence: UInt64, stream: LinkStream) {
        Task { @MainActor in
            var request = Data()
            while case let chunk = try await stream.read(maxLength: 1000), !chunk.isEmpty { request += chunk }
            DBusAnswer<DeviceMethod>(call).reply(.openStreams(sequence: sequence, stream: stream.id), ())
            try await stream.write(Data("got ".utf8) + request)
            try await stream.finishWriting()
        }
    }

    override func stop() {
        super.stop()
        held = []
    }

    override func payload(sequence: UInt64, for peer: DevicePeer) throws(DeviceServiceError) -> Data {
        let activity = UserActivity(activityType: "com.example.probe.editing")
        activity.supportsContinuationStreams = true
        do { return try activity.payload() } catch { throw .failed("\(error)") }
    }

    override func openStreams(sequence: UInt64, stream id: UInt32, on streams: LinkStreams) throws(DeviceServiceError) -> @MainActor () -> Void {
        switch behaviour {
        case .refuses, .staysSilent, .readsTheRequestBeforeAnswering:
            throw .refused("no streams for you")
        case .floods:
            _ = streams.accept(id, idleTimeout: .seconds(30))
            return {
                let chunk = Data(repeating: 1, count: LinkStreams.chunk)
                for _ in 0...(LinkStreams.window / LinkStreams.chunk) { streams.emit(.streamData(stream: id, bytes: chunk)) }
            }
        case .sendsOnAnUnknownStream:
            _ = streams.accept(id, idleTimeout: .seconds(30))
            return { streams.emit(.streamData(stream: id + 1000, bytes: Data([1, 2, 3]))) }
        }
    }
}
