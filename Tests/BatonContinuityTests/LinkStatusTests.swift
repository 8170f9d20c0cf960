@testable import Baton
@_spi(Testing) @testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// What a node says of each link (`ContinuityNode.linkStatus`, shown by `baton status` and
/// `baton inspect`): its path, its round trip, the stream bytes it dropped; and the
/// originating side of a continuation recorded in its provider's history. Two real nodes in
/// this process, linked over loopback with mutual TLS.
final class LinkStatusTests: TrustTestCase {
    /// A provider offering one activity with a fixed payload, keeping its own history.
    @MainActor
    final class OfferingProvider: ActivityProvider {
        var advertisementDidChange: (@MainActor () -> Void)?
        let history = ContinuationHistory()
        let payload = Data(repeating: 7, count: 1234)
        private(set) var toldContinued = 0
        var continuationHistory: ContinuationHistory? { history }

        func advertisement() -> ProvidedActivity? {
            ProvidedActivity(generation: 1, activityType: "com.example.probe.editing", title: "Notes", appID: "com.example.probe",
                             teamIdentifier: "PROBETEAM", webpageURL: nil, supportsContinuationStreams: false)
        }
        func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data { payload }
        func continued(_ activity: ProvidedActivity) async { toldContinued += 1 }
        func canOpenStreams(for activity: ProvidedActivity) -> Bool { false }
        func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) { channel.close() }
        func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) {}
        func nodeDidStart(_ node: ContinuityNode) {}
        func nodeDidStop(_ node: ContinuityNode) {}
    }

    /// Node A (offering through `provider`) listening on loopback, node B (the app's own
    /// provider) dialing it; returns once each has the other's link.
    @MainActor
    private static func linkedNodes(_ authority: GroupAuthority,
                                    provider: any ActivityProvider = SilentActivityProvider()) throws -> (a: ContinuityNode, b: ContinuityNode) {
        let identityB = try authority.issueDevice(named: "B")  // first: A's list, issued after, names B
        let a = try ContinuityNode(identity: try authority.issueDevice(named: "A"), provider: provider)
        try a.start(host: "127.0.0.1")
        let address = try XCTUnwrap(PeerAddress("127.0.0.1:\(try XCTUnwrap(a.port))"))
        let b = try ContinuityNode(identity: identityB, staticPeers: [address])
        try b.start(host: "127.0.0.1")
        spin(until: { a.linkStatus.count == 1 && b.linkStatus.count == 1 })
        return (a, b)
    }

    /// Each link says it runs on the local network and that it dropped nothing; bytes the peer
    /// sends on a stream closed here are counted on that link's status; a ping over each link
    /// gives its round trip.
    func testEachLinkSaysItsPathItsRoundTripAndTheStreamBytesItDropped() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        try MainActor.assumeIsolated {
            launchAsProbeApp(ContinuedActivityRecorder())
            let (a, b) = try Self.linkedNodes(authority)
            defer { b.stop(); a.stop() }
            let status = try XCTUnwrap(a.linkStatus.first)
            XCTAssertEqual(status.device, "B")
            XCTAssertEqual(status.path, .lan)
            XCTAssertEqual(status.droppedStreamBytes, 0)
            XCTAssertNil(status.roundTripMilliseconds, "measured only when asked")

            let onB = try XCTUnwrap(b.links.all.first), onA = try XCTUnwrap(a.links.all.first)
            let opened = try XCTUnwrap(onB.streams.makeStream(idleTimeout: .seconds(30)))
            XCTAssertTrue(onA.streams.admits(opened.id))
            onA.streams.accept(opened.id, idleTimeout: .seconds(30)).close()
            onB.streams.emit(.streamData(stream: opened.id, bytes: Data(count: 1000)))
            spin(until: { a.linkStatus.first?.droppedStreamBytes == 1000 })
            XCTAssertEqual(b.linkStatus.first?.droppedStreamBytes, 0, "only the side that dropped them counts them")

            let times = Outcome { await a.roundTrips() }
            spin(until: { times.done })
            XCTAssertNotNil(try times.get()["B"], "B answered its ping")
        }
    }

    /// The originating side records its steps (issue 28): the continuing device asked for the
    /// payload, it was served (its bytes), and the continuing device said it continued it, so
    /// the provider was told — one record, by the continuing device's name and the sequence.
    func testTheOriginatingSideRecordsThePayloadServedAndWasContinued() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        try MainActor.assumeIsolated {
            launchAsProbeApp(ContinuedActivityRecorder())
            let provider = OfferingProvider()
            let (a, b) = try Self.linkedNodes(authority, provider: provider)
            defer { b.stop(); a.stop() }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let entry = try XCTUnwrap(Application.shared.nearbyActivities.first)
            let fetch = Outcome { try await b.fetchPayload(of: entry) }
            spin(until: { fetch.done })
            XCTAssertEqual(try fetch.get().count, provider.payload.count)
            let confirm = Outcome { try await b.confirmContinued(entry) }
            spin(until: { confirm.done })
            XCTAssertNoThrow(try confirm.get())
            XCTAssertEqual(provider.toldContinued, 1)

            let record = try XCTUnwrap(provider.history.records.last)
            XCTAssertEqual(provider.history.records.count, 1)
            XCTAssertEqual(record.side, .originating)
            XCTAssertEqual(record.device, "B")
            XCTAssertEqual(record.sequence, entry.sequence)
            XCTAssertEqual(record.activityType, "com.example.probe.editing")
            XCTAssertEqual(record.steps.map(\.kind), [.asked, .payloadServed(bytes: provider.payload.count), .wasContinuedReceived])
            XCTAssertTrue(record.isFinished)
            XCTAssertTrue(Application.shared.continuationHistory.records.allSatisfy { $0.side == .continuing },
                          "B's own history holds no originating record")
        }
    }

    /// A link's status written before `path` and `droppedStreamBytes` existed (an agent of
    /// interface 6) reads as the local network and nothing dropped; an unmeasured round trip
    /// reads "—".
    func testALinkStatusWithoutThePathReadsAsTheLocalNetwork() throws {
        let old = #"{"address":"10.0.0.2","device":"B","dialedByThisDevice":true,"since":"2026-11-28T10:00:00Z"}"#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let status = try decoder.decode(LinkStatus.self, from: Data(old.utf8))
        XCTAssertEqual(status.path, .lan)
        XCTAssertEqual(status.droppedStreamBytes, 0)
        XCTAssertEqual(status.roundTripWords, "—")
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var relayed = status
        relayed.path = .relayed
        relayed.roundTripMilliseconds = 12.5
        let again = try decoder.decode(LinkStatus.self, from: encoder.encode(relayed))
        XCTAssertEqual(again, relayed)
        XCTAssertEqual(again.roundTripWords, "12.50 ms")
        let json = String(decoding: try encoder.encode(relayed), as: UTF8.self)
        XCTAssertTrue(json.contains(#""path":"relayed""#), json)
    }

    /// A continuation record written by a newer version, with a step kind not known here, still
    /// reads: the unknown step is counted as left out; a record without `side` is a continuing one.
    func testARecordWithAnUnknownStepKindStillReads() throws {
        let json = #"{"id":3,"activityType":"t","droppedSteps":1,"steps":[{"time":"2026-11-28T10:00:00Z","kind":{"asked":{}}},"#
            + #"{"time":"2026-11-28T10:00:01Z","kind":{"somethingNew":{"x":1}}}]}"#
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let record = try decoder.decode(ContinuationRecord.self, from: Data(json.utf8))
        XCTAssertEqual(record.steps.map(\.kind), [.asked])
        XCTAssertEqual(record.droppedSteps, 2)
        XCTAssertEqual(record.side, .continuing)
    }
}
