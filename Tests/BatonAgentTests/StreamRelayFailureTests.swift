import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import Baton
@testable import BatonAgent

/// The agent's relay when the device's stream fails (docs/PROTOCOL.md §5, "Continuation streams
/// through the agent"). The agent hands its app a stream before the other device has answered
/// the open (it is pipelined), so a refusal reaches the app on the stream: the relay writes a
/// failure frame with the refusal's Handoff code before it closes the app's connection, and the
/// app's reads throw that code, as in an app that runs its own node. Real `LocalStream`s over a
/// Unix socket pair, on the loop.
final class StreamRelayFailureTests: XCTestCase {
    /// A device stream whose every read and write throws `error` (an open the device refused,
    /// as `LinkStream` reports it; or a link that broke).
    final class FailedChannel: ContinuationStreamChannel, @unchecked Sendable {
        let error: any Error
        init(_ error: any Error) { self.error = error }
        nonisolated(nonsending) func read(maxLength: Int) async throws -> Data { throw error }
        nonisolated(nonsending) func write(_ data: Data) async throws { throw error }
        nonisolated(nonsending) func finishWriting() async throws { throw error }
        func close() {}
    }

    /// A refused open (`featureUnsupported`, the device's `NoStreams`): the app's read throws
    /// that code, and so does every read after it.
    func testARefusalOfTheDevicesStreamReachesTheAppAsItsCode() throws {
        let codes = try relayFailure(CocoaError(.featureUnsupported))
        XCTAssertEqual(codes, [.featureUnsupported, .featureUnsupported])
    }

    /// No answer in time: `userActivityRemoteApplicationTimedOut` reaches the app the same way.
    func testATimedOutOpenReachesTheAppAsItsCode() throws {
        let codes = try relayFailure(CocoaError(.userActivityRemoteApplicationTimedOut))
        XCTAssertEqual(codes.first, .userActivityRemoteApplicationTimedOut)
    }

    /// A device stream that broke (a transport error, no Handoff code) still reads in the app as
    /// a connection that broke before its end.
    func testABrokenDeviceStreamStillReadsAsABrokenConnection() throws {
        let codes = try relayFailure(GLibError(domain: "baton", code: 0, message: "the peer broke the stream"))
        XCTAssertEqual(codes.first, .userActivityConnectionUnavailable)
    }

    /// Relays the app's end of a socket pair to a device stream failing with `error`; returns the
    /// codes of the app's first two reads' errors (nil for a read that did not throw one).
    private func relayFailure(_ error: any Error) throws -> [CocoaError.Code?] {
        try MainActor.assumeIsolated {
            let (app, agentSide) = try LocalStream.pair()
            defer { app.close() }
            let relay = StreamRelay()
            defer { relay.closeAll() }
            relay.connect(agentSide, token: relay.expect(FailedChannel(error)))
            return try runToEnd { () async -> [CocoaError.Code?] in
                var codes: [CocoaError.Code?] = []
                for _ in 0..<2 {
                    do {
                        _ = try await app.read(maxLength: 100)
                        codes.append(nil)
                    } catch {
                        codes.append((error as? CocoaError)?.code)
                    }
                }
                return codes
            }
        }
    }
}
