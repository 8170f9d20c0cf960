import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import Baton
@testable import BatonAgent

/// The app↔agent hop of continuation streams, pipelined (`OpenStreamsPipelined`, interface
/// version 6; docs/PROTOCOL.md §5): the app picks the token, sends the call and at once opens
/// its stream connection (`P` and the token) and writes, without waiting for the reply. The
/// agent's relay pairs the connection with the call in whichever order they come, and a failed
/// call fails the app's stream with its Handoff code. Real `LocalStream`s over Unix socket
/// pairs, on the loop; the device's stream is another `LocalStream` pair standing for the link.
final class PipelinedStreamRelayTests: XCTestCase {
    /// The app's connection comes (and writes, and finishes writing) before its call: the
    /// bytes wait, and reach the device's side once the call attaches the device's stream.
    func testAConnectionThatComesBeforeItsCallIsRelayedOnceTheCallAttaches() throws {
        try relayed(callFirst: false)
    }

    /// The call comes first: the device's stream waits for the app's connection.
    func testACallThatComesBeforeItsConnectionIsRelayedWhenItComes() throws {
        try relayed(callFirst: true)
    }

    /// The call fails after the connection came: the app's reads throw the call's Handoff code
    /// (a failure frame), and the token is no longer waiting.
    func testACallThatFailsAfterItsConnectionCameFailsTheAppsStreamWithItsCode() throws {
        let code = try failedCall(connectionFirst: true)
        XCTAssertEqual(code, .featureUnsupported)
    }

    /// The call fails before the connection comes: the connection reads the code at once.
    func testACallThatFailedBeforeItsConnectionCameFailsTheAppsStreamWithItsCode() throws {
        let code = try failedCall(connectionFirst: false)
        XCTAssertEqual(code, .featureUnsupported)
    }

    /// Connections waiting for a call are capped: past `maximumWaiting` the oldest is closed
    /// (its reads fail as a broken stream); an `S` connection with a token the agent did not
    /// give is closed at once and counted.
    func testWaitingConnectionsAreCappedAndUnknownAgentTokensRefused() throws {
        try MainActor.assumeIsolated {
            let relay = StreamRelay()
            relay.maximumWaiting = 2
            defer { relay.closeAll() }
            let pairs = try (0..<3).map { _ in try LocalStream.pair() }
            defer { for (app, _) in pairs { app.close() } }
            for (_, agentSide) in pairs { relay.connect(agentSide, marker: StreamRelay.pipelinedMarker, token: StreamRelay.randomToken()) }
            let oldest = pairs[0].0
            let code = try runToEnd { () async -> CocoaError.Code? in
                do {
                    _ = try await oldest.read(maxLength: 10)
                    return nil
                } catch {
                    return (error as? CocoaError)?.code
                }
            }
            XCTAssertEqual(code, .userActivityConnectionUnavailable, "the oldest waiting connection was closed")
            let (stranger, strangerAgentSide) = try LocalStream.pair()
            defer { stranger.close() }
            relay.connect(strangerAgentSide, marker: StreamRelay.marker, token: StreamRelay.randomToken())
            XCTAssertEqual(relay.refusedConnections, 1)
        }
    }

    /// The app's side alone: a stream failed locally (its call failed) throws that code from a
    /// read already waiting and from later writes.
    func testAStreamFailedLocallyThrowsItsCodeFromWaitingReadsAndLaterWrites() throws {
        try MainActor.assumeIsolated {
            let (app, agentSide) = try LocalStream.pair()
            defer { agentSide.close() }
            var read: Result<Data, any Error>?
            Task { @MainActor in read = await result { try await app.read(maxLength: 10) } }
            drainIdle()  // the read waits on the socket
            XCTAssertNil(read)
            app.failLocally(CocoaError.handoff(.userActivityHandoffFailed, "refused"))
            spin(until: { read != nil })
            XCTAssertEqual(((try? XCTUnwrap(read))?.error as? CocoaError)?.code, .userActivityHandoffFailed)
            let write = try runToEnd { () async -> CocoaError.Code? in
                do {
                    try await app.write(Data([1]))
                    return nil
                } catch {
                    return (error as? CocoaError)?.code
                }
            }
            XCTAssertEqual(write, .userActivityHandoffFailed)
        }
    }

    // MARK: Helpers

    /// An app's connection and a call for one token, in the order `callFirst` says; the app
    /// writes a request and finishes; the device's side reads it whole and answers, and the app
    /// reads the answer to its end.
    private func relayed(callFirst: Bool) throws {
        try MainActor.assumeIsolated {
            let relay = StreamRelay()
            defer { relay.closeAll() }
            let (app, agentSide) = try LocalStream.pair()
            let (device, deviceAgentSide) = try LocalStream.pair()
            defer {
                app.close()
                device.close()
            }
            let token = StreamRelay.randomToken()
            if callFirst {
                XCTAssertTrue(relay.attach(deviceAgentSide, token: token))
                XCTAssertFalse(relay.attach(deviceAgentSide, token: token), "a token already waiting is refused")
            }
            relay.connect(agentSide, marker: StreamRelay.pipelinedMarker, token: token)
            let request = Data("send 5".utf8)
            var written: Result<Void, any Error>?
            Task { @MainActor in
                written = await result {
                    try await app.write(request)
                    try await app.finishWriting()
                }
            }
            if !callFirst {
                spin(until: { written != nil })
                XCTAssertNoThrow(try XCTUnwrap(written).get(), "the app writes before the call is answered")
                XCTAssertTrue(relay.attach(deviceAgentSide, token: token))
            }
            let (received, answer) = try runToEnd { () async throws -> (Data, Data) in
                var received = Data()
                while true {
                    let chunk = try await device.read(maxLength: 100)
                    if chunk.isEmpty { break }
                    received += chunk
                }
                try await device.write(Data("hello".utf8))
                try await device.finishWriting()
                var answer = Data()
                while true {
                    let chunk = try await app.read(maxLength: 100)
                    if chunk.isEmpty { break }
                    answer += chunk
                }
                return (received, answer)
            }
            XCTAssertEqual(received, request)
            XCTAssertEqual(answer, Data("hello".utf8))
        }
    }

    /// The code an app's read throws when its call fails with `featureUnsupported`, its
    /// connection coming before (`connectionFirst`) or after the failure.
    private func failedCall(connectionFirst: Bool) throws -> CocoaError.Code? {
        try MainActor.assumeIsolated {
            let relay = StreamRelay()
            defer { relay.closeAll() }
            let (app, agentSide) = try LocalStream.pair()
            defer { app.close() }
            let token = StreamRelay.randomToken()
            let failure = CocoaError.handoff(.featureUnsupported, "no streams")
            if connectionFirst {
                relay.connect(agentSide, marker: StreamRelay.pipelinedMarker, token: token)
                relay.refuse(token, with: failure)
            } else {
                relay.refuse(token, with: failure)
                relay.connect(agentSide, marker: StreamRelay.pipelinedMarker, token: token)
            }
            return try runToEnd { () async -> CocoaError.Code? in
                do {
                    _ = try await app.read(maxLength: 100)
                    return nil
                } catch {
                    return (error as? CocoaError)?.code
                }
            }
        }
    }
}

extension Result {
    /// The error of a failure (nil for a success).
    fileprivate var error: Failure? { if case .failure(let error) = self { error } else { nil } }
}
