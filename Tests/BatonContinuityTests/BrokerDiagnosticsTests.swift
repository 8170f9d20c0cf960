@testable import BatonContinuity
import Foundation
import XCTest

/// Issue 29: each `BrokerEvent` as the `DiagnosticEvent` a node publishes for it, and those
/// events through JSON (the diagnostics pipe) unchanged.
final class BrokerDiagnosticsTests: XCTestCase {
    func testEveryBrokerEventHasItsDiagnosticEvent() {
        XCTAssertEqual(DiagnosticEvent(.connected), .brokerConnected)
        XCTAssertEqual(DiagnosticEvent(.connectFailed(.tls, retryIn: .milliseconds(1500))),
                       .brokerConnectFailed(reason: .tls, code: nil, retryAfterMilliseconds: 1500))
        XCTAssertEqual(DiagnosticEvent(.connectFailed(.refusedByBroker(code: 135), retryIn: .seconds(2))),
                       .brokerConnectFailed(reason: .refusedByBroker, code: 135, retryAfterMilliseconds: 2000))
        XCTAssertEqual(DiagnosticEvent(.disconnected(.library(code: 7, message: "The connection was lost."), retryIn: .seconds(60))),
                       .brokerDisconnected(reason: .library, code: 7, retryAfterMilliseconds: 60_000))
        XCTAssertEqual(DiagnosticEvent(.disconnected(.unreachable(reason: "No route to host"), retryIn: .zero)),
                       .brokerDisconnected(reason: .unreachable, code: nil, retryAfterMilliseconds: 0))
        let errors: [BrokerError] = [.noGroupKey, .notConnected, .tooLarge(size: 2, limit: 1), .timedOut, .unreachable(reason: "x"),
                                     .tls, .refusedByBroker(code: 5), .subscriptionRefused, .connectionLost, .library(code: 1, message: "x")]
        XCTAssertEqual(Set(errors.map { DiagnosticEvent.BrokerProblem.of($0).problem }), Set(DiagnosticEvent.BrokerProblem.allCases),
                       "each problem stands for an error, none for two")

        let refusals: [BrokerRefusal] = [.unknownTopic, .tooLarge(size: 2, limit: 1), .unsealed, .malformed(problem: "x"), .badSignature,
                                         .wrongRecipient, .untrustedSender(.peerNotInGroup(reason: "x")),
                                         .untrustedSender(.peerRevoked(device: "phone")), .senderMismatch, .stale, .replayed]
        let mapped = refusals.map { DiagnosticEvent(.refused($0)) }
        XCTAssertEqual(mapped, DiagnosticEvent.BrokerMessageRefusal.allCases.map { .brokerMessageRefused(reason: $0) })
        XCTAssertEqual(DiagnosticEvent(.refused(.untrustedSender(.peerRevoked(device: "phone")))),
                       .brokerMessageRefused(reason: .revokedSender))
    }

    func testBrokerEventsGoThroughJSONUnchanged() throws {
        let events: [DiagnosticEvent] = [
            .brokerConnected, .brokerConnectFailed(reason: .refusedByBroker, code: 135, retryAfterMilliseconds: 1000),
            .brokerDisconnected(reason: .connectionLost, code: nil, retryAfterMilliseconds: 60_000),
            .brokerMessageRefused(reason: .replayed),
        ]
        for event in events {
            XCTAssertEqual(try JSONDecoder().decode(DiagnosticEvent.self, from: JSONEncoder().encode(event)), event)
        }
    }
}
