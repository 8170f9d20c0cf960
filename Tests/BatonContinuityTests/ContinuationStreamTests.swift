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

    /// An originating device that refuses `OpenStreams`: the continuing side's
    /// `continuationStreams()` fails with an error; it never returns streams that read as empty.
    func testARefusedStreamFailsInsteadOfReadingEmpty() throws {
        let (error, _) = try continueFromOrigin(that: .refuses, acceptanceTimeout: .seconds(10))
        XCTAssertEqual(error?.code, .userActivityHandoffFailed, "\(String(describing: error))")
    }

    /// An originating device that never answers `OpenStreams`: `continuationStreams()` fails
    /// once `streamAcceptanceTimeout` has passed.
    func testAStreamNeverAcceptedTimesOut() throws {
        let (error, _) = try continueFromOrigin(that: .staysSilent, acceptanceTimeout: .seconds(1))
        XCTAssertEqual(error?.code, .userActivityRemoteApplicationTimedOut, "\(String(describing: error))")
    }

    /// A peer that sends more than the credit it was given (one window, while this side reads
    /// nothing) breaks the protocol: this device closes the link, published as a refusal, and
    /// its stream fails instead of buffering the flood.
    func testAPeerSendingPastTheWindowHasItsLinkClosed() throws {
        let (_, refusals) = try continueFromOrigin(that: .floods, acceptanceTimeout: .seconds(10))
        XCTAssertEqual(refusals, [.malformedMessage])
    }

    /// A peer that sends on a stream never opened on the link breaks the protocol: the link
    /// is closed, published as a refusal.
    func testAPeerSendingOnAnUnknownStreamHasItsLinkClosed() throws {
        let (_, refusals) = try continueFromOrigin(that: .sendsOnAnUnknownStream, acceptanceTimeout: .seconds(10))
        XCTAssertEqual(refusals, [.malformedMessage])
    }

    /// Continues the activity of an in-process origin that misbehaves as `behaviour` on
    /// `OpenStreams`, opens streams and reads them; returns how that failed (nil: it did not, or
    /// not with a CocoaError) and the refusals this node published.
    private func continueFromOrigin(that behaviour: StreamRefusingOrigin.Behaviour,
                                    acceptanceTimeout: Duration) throws -> (CocoaError?, [DiagnosticEvent.RefusalReason]) {
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
            var refusals: [DiagnosticEvent.RefusalReason] = []
            let observation = node.diagnostics.observe { event in
                if case .refused(_, let reason) = event { refusals.append(reason) }
            }
            defer { observation.cancel() }
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            Application.shared.continueNearbyActivity(Application.shared.nearbyActivities[0])
            spin(until: { recorder.activity != nil || recorder.failure != nil })
            let activity = try XCTUnwrap(recorder.activity, "\(String(describing: recorder.failure))")
            let opened = Outcome { try await activity.continuationStreams().0 }
            spin(until: { opened.done })
            XCTAssertTrue(origin.streamRequests > 0, "OpenStreams reached the origin")
            guard case .success(let input)? = opened.value else { return (opened.error as? CocoaError, refusals) }
            if behaviour == .refuses || behaviour == .staysSilent {
                XCTFail("the streams opened")
                return (nil, refusals)
            }
            // Opened, then the origin misbehaves (this side reads nothing meanwhile): the link
            // is refused, and the stream fails rather than read what the origin sent.
            spin(until: { !refusals.isEmpty })
            let read = Outcome { try await input.readToEnd(limit: 100 * 1024 * 1024).count }
            spin(until: { read.done })
            if case .success(let count)? = read.value { XCTFail("the streams opened and read \(count) bytes") }
            return (nil, refusals)
        }
    }
}

/// An originating device in this process that advertises an activity supporting continuation
/// streams, then misbehaves on `OpenStreams`: it refuses it (`refuses`), never answers it
/// (`staysSilent`), or opens the stream and then sends a window and more without waiting for
/// credit (`floods`) or sends on a stream never opened (`sendsOnAnUnknownStream`).
@MainActor
final class StreamRefusingOrigin: InProcessDevice {
    enum Behaviour { case refuses, staysSilent, floods, sendsOnAnUnknownStream }
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
            if behaviour == .staysSilent { return held.append(call) }
        }
        super.serve(call, with: service)
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
        case .refuses, .staysSilent:
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
