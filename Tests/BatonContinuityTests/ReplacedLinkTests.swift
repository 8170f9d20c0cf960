@_spi(Testing) @testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// A continuation under way on a link that is replaced because both devices dialed each other
/// (two agents that start together and find each other through Avahi before their first
/// browse settles both dial, by design) goes on: a fetch out is asked again over the link that
/// stays, and continuation streams opened on the older link run to their end on it before it
/// closes (handoff-programming-guide, "Continuing an Activity" and "Using Continuation
/// Streams": the continuing app is told of a failure only when the activity cannot be
/// continued). Two real nodes in this process, linked over loopback with mutual TLS.
final class ReplacedLinkTests: TrustTestCase {
    /// A provider offering one activity whose payload is held until `release()`, and whose
    /// streams answer what they read, once its end has come, with `reply(to:)`.
    @MainActor
    private final class HeldPayloadProvider: ActivityProvider {
        var advertisementDidChange: (@MainActor () -> Void)?
        let payload = Data("the payload, saved once the device dialed too".utf8)
        private(set) var asked = 0
        private var released = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        /// What each stream read, once it has read its end.
        private(set) var requests: [Data] = []

        static func reply(to request: Data) -> Data { Data("answer to ".utf8) + request }

        func advertisement() -> ProvidedActivity? {
            ProvidedActivity(generation: 1, activityType: "com.example.probe.editing", title: "Notes", appID: "com.example.probe",
                             teamIdentifier: "PROBETEAM", webpageURL: nil, supportsContinuationStreams: true)
        }
        func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data {
            asked += 1
            if !released { await withCheckedContinuation { waiting.append($0) } }
            return payload
        }
        func release() {
            released = true
            for continuation in waiting { continuation.resume() }
            waiting = []
        }
        func continued(_ activity: ProvidedActivity) async {}
        func canOpenStreams(for activity: ProvidedActivity) -> Bool { true }
        func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) {
            Task { @MainActor in
                do {
                    let request = try await readToEnd(channel)
                    requests.append(request)
                    try await channel.write(Self.reply(to: request))
                    try await channel.finishWriting()
                } catch {
                    channel.abort()
                }
                channel.close()
            }
        }
        func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) {}
        func nodeDidStart(_ node: ContinuityNode) {}
        func nodeDidStop(_ node: ContinuityNode) {}
    }

    /// What `channel` reads up to its end.
    @MainActor
    private static func readToEnd(_ channel: any ContinuationStreamChannel) async throws -> Data {
        var data = Data()
        while true {
            let chunk = try await channel.read(maxLength: 64 * 1024)
            if chunk.isEmpty { return data }
            data.append(chunk)
        }
    }

    /// A provider offering nothing that keeps the peers' activities it is shown.
    @MainActor
    private final class NearbyRecorder: ActivityProvider {
        var advertisementDidChange: (@MainActor () -> Void)?
        private(set) var nearby: [NearbyActivity] = []
        func advertisement() -> ProvidedActivity? { nil }
        func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data { throw .notCurrent }
        func continued(_ activity: ProvidedActivity) async {}
        func canOpenStreams(for activity: ProvidedActivity) -> Bool { false }
        func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) { channel.close() }
        func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) { nearby = activities }
        func nodeDidStart(_ node: ContinuityNode) {}
        func nodeDidStop(_ node: ContinuityNode) {}
    }

    /// The continuing device dials first and fetches; while the offering device holds the
    /// payload, it dials too. Its identifier sorts first, so its connection stays on both
    /// sides and the continuing device closes the link it had dialed, with the fetch out on
    /// it. The fetch is asked again over the link that stays and gives the payload.
    func testAFetchOutOnALinkReplacedBecauseBothDialedIsAskedAgainOverTheLinkThatStays() throws {
        try withLinkedNodes { offering, continuing, held, recorder, continuingAddress in
            var result: Result<Data, CocoaError>?
            continuing.startFetchingPayload(of: recorder.nearby[0]) { result = $0 }
            spin(until: { held.asked == 1 })
            // The offering device finds the continuing one (as through DNS-SD) and dials it.
            offering.dialer.found(FoundPeer(address: continuingAddress, dialsUs: false))
            spin(until: { held.asked == 2 || result != nil })
            XCTAssertNil(result, "the fetch out on the link replaced did not fail: \(String(describing: result))")
            XCTAssertEqual(held.asked, 2, "asked again over the link that stays")
            XCTAssertEqual(continuing.linkStatus.map(\.dialedByThisDevice), [false])
            held.release()
            spin(until: { result != nil })
            XCTAssertEqual(try result?.get(), held.payload)
            XCTAssertEqual(continuing.linkStatus.map(\.dialedByThisDevice), [false], "one link: the one the first device dialed")
        }
    }

    /// The continuing device dials first and opens continuation streams, writing its request's
    /// first half; then the offering device dials too and its connection replaces the first.
    /// The streams go on over the older link: the rest of the request goes, the answer comes
    /// whole, and only then does the older link close on both sides (the device that dialed
    /// it closing it, not the other's deadline).
    func testStreamsOpenOnALinkReplacedBecauseBothDialedRunToTheirEnd() throws {
        try withLinkedNodes { offering, continuing, held, recorder, continuingAddress in
            var channel: (any ContinuationStreamChannel)?
            var failure: (any Error)?
            Task { @MainActor in
                do {
                    let opened = try await continuing.openStreams(for: recorder.nearby[0])
                    try await opened.write(Data("the first half, ".utf8))
                    channel = opened
                } catch { failure = error }
            }
            spin(until: { channel != nil || failure != nil })
            XCTAssertNil(failure)
            guard let channel else { return }
            offering.dialer.found(FoundPeer(address: continuingAddress, dialsUs: false))
            spin(until: { continuing.linkStatus.map(\.dialedByThisDevice) == [false] && offering.linkStatus.map(\.dialedByThisDevice) == [true] })
            XCTAssertEqual(continuing.links.supersededCount, 1, "the older link stays open while its stream runs")

            var answer: Result<Data, any Error>?
            Task { @MainActor in
                do {
                    try await channel.write(Data("and the second".utf8))
                    try await channel.finishWriting()
                    answer = .success(try await Self.readToEnd(channel))
                } catch { answer = .failure(error) }
                channel.close()
            }
            spin(until: { answer != nil })
            let request = Data("the first half, and the second".utf8)
            XCTAssertEqual(held.requests, [request])
            XCTAssertEqual(try answer?.get(), HeldPayloadProvider.reply(to: request))
            spin(until: { continuing.links.supersededCount == 0 && offering.links.supersededCount == 0 })
            XCTAssertEqual(offering.links.supersededExpired, 0, "the device that dialed the older link closed it")
            XCTAssertEqual(continuing.linkStatus.count, 1)
            XCTAssertEqual(offering.linkStatus.count, 1)
        }
    }

    /// Node `offering` (whose identifier sorts first) with one activity, and node `continuing`,
    /// listening on 127.0.0.2, which dialed it and sees the activity; `body` runs with both,
    /// then both stop.
    private func withLinkedNodes(_ body: @MainActor (_ offering: ContinuityNode, _ continuing: ContinuityNode, _ held: HeldPayloadProvider,
                                                     _ recorder: NearbyRecorder, _ continuingAddress: PeerAddress) throws -> Void) throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let one = try authority.issueDevice(named: "A"), two = try authority.issueDevice(named: "B")
        let (first, second) = one.identifier < two.identifier ? (one, two) : (two, one)
        try MainActor.assumeIsolated {
            let held = HeldPayloadProvider(), recorder = NearbyRecorder()
            let offering = try ContinuityNode(identity: first, provider: held)
            try offering.start(host: "127.0.0.1", discovery: .off)
            let offeringAddress = PeerAddress(host: "127.0.0.1", port: try XCTUnwrap(offering.port))
            // Another loopback address, so the offering device does not take the link that
            // comes from 127.0.0.1 for one to this address.
            let continuingAddress = PeerAddress(host: "127.0.0.2", port: try FreePort.tcp())
            let continuing = try ContinuityNode(identity: second, staticPeers: [offeringAddress], provider: recorder)
            try continuing.start(host: continuingAddress.host, port: continuingAddress.port, discovery: .off)
            defer {
                continuing.stop()
                offering.stop()
                drainIdle()
            }
            spin(until: { !recorder.nearby.isEmpty })
            XCTAssertEqual(continuing.linkStatus.map(\.dialedByThisDevice), [true])
            try body(offering, continuing, held, recorder, continuingAddress)
        }
    }
}
