import Baton
@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// Issue 26: the one mapping from failures to Handoff's codes (`HandoffFailure`), every row of
/// it, each decided from the error's type and never from its words.
final class HandoffFailureTests: XCTestCase {
    /// A D-Bus error reply as the engine gives it (`DBusConnection`); its words name another
    /// error: only the name decides.
    private func remote(_ name: String) -> GLibError {
        GLibError(domain: "g-io-error-quark", code: gint(G_IO_ERROR_DBUS_ERROR.rawValue),
                  message: "org.baton.Error.TooLarge org.baton.Agent1.Error.TimedOut", remoteDBusErrorName: name)
    }

    private func io(_ code: GIOErrorEnum) -> GLibError {
        GLibError(consuming: g_error_new_literal(g_io_error_quark(), gint(code.rawValue), "GDBus.Error:org.baton.Error.NoStreams: x"))
    }

    func testEveryDBusErrorNameHasItsCode() {
        let device: [HandoffFailure.DeviceErrorName: CocoaError.Code] = [
            .notCurrent: .userActivityHandoffFailed, .tooLarge: .userActivityHandoffUserInfoTooLarge,
            .failed: .userActivityHandoffFailed, .noStreams: .featureUnsupported, .refused: .userActivityHandoffFailed,
        ]
        let agent: [HandoffFailure.AgentErrorName: CocoaError.Code] = [
            .connectionUnavailable: .userActivityConnectionUnavailable, .handoffFailed: .userActivityHandoffFailed,
            .tooLarge: .userActivityHandoffUserInfoTooLarge, .timedOut: .userActivityRemoteApplicationTimedOut,
            .unsupported: .featureUnsupported, .notJoined: .userActivityHandoffFailed, .refused: .userActivityHandoffFailed,
        ]
        let app: [HandoffFailure.AppErrorName: CocoaError.Code] = [
            .notCurrent: .userActivityHandoffFailed, .tooLarge: .userActivityHandoffUserInfoTooLarge, .failed: .userActivityHandoffFailed,
        ]
        XCTAssertEqual(Set(device.keys), Set(HandoffFailure.DeviceErrorName.allCases), "a row for every Device1 error")
        XCTAssertEqual(Set(agent.keys), Set(HandoffFailure.AgentErrorName.allCases), "a row for every Agent1 error")
        XCTAssertEqual(Set(app.keys), Set(HandoffFailure.AppErrorName.allCases), "a row for every App1 error")
        var rows: [(String, CocoaError.Code)] = device.map { ($0.key.rawValue, $0.value) }
        rows += agent.map { ($0.key.rawValue, $0.value) }
        rows += app.map { ($0.key.rawValue, $0.value) }
        rows.append(("org.freedesktop.DBus.Error.UnknownMethod", .userActivityHandoffFailed))
        XCTAssertEqual(Set(rows.map(\.0)).count, rows.count, "every name is one interface's only")
        for (name, code) in rows {
            XCTAssertEqual(HandoffFailure.code(forErrorName: name), code, name)
            XCTAssertEqual(HandoffFailure.code(for: remote(name)), code, name)
            XCTAssertEqual(ContinuityNode.handoffError(for: remote(name)).code, code, name)
        }
        // The declarations use the same names.
        XCTAssertEqual(DeviceInterface.ErrorName.noStreams, "org.baton.Error.NoStreams")
        XCTAssertEqual(DeviceInterface.ErrorName.refused, "org.baton.Error.Refused")
    }

    func testEveryHandoffCodeCrossesTheAgentConnectionAsItself() {
        for code in HandoffFailure.codes {
            XCTAssertEqual(HandoffFailure.AgentErrorName(code).code, code, "\(code)")
        }
        XCTAssertEqual(HandoffFailure.AgentErrorName(.fileNoSuchFile), .handoffFailed, "a code that is not Handoff's")
    }

    func testEachErrorTypeHasItsCode() {
        let rows: [(String, any Error, CocoaError.Code)] = [
            ("GIO timeout", io(G_IO_ERROR_TIMED_OUT), .userActivityRemoteApplicationTimedOut),
            ("reply of the wrong type", io(G_IO_ERROR_INVALID_ARGUMENT), .userActivityHandoffFailed),
            ("link closed", io(G_IO_ERROR_CLOSED), .userActivityConnectionUnavailable),
            ("connection refused", io(G_IO_ERROR_CONNECTION_REFUSED), .userActivityConnectionUnavailable),
            ("TLS failure", GLibError(domain: "g-tls-error-quark", code: 1, message: "Unacceptable TLS certificate"),
             .userActivityConnectionUnavailable),
            ("protocol broken", PeerProtocolError.malformed("the FetchPayload reply is not (ay)"), .userActivityHandoffFailed),
            ("protocol broken, remote", PeerProtocolError.remote(name: "x", message: "y"), .userActivityHandoffFailed),
            ("payload too large", UserActivityError.payloadTooLarge(size: 70_000, limit: 65_536), .userActivityHandoffUserInfoTooLarge),
            ("payload malformed", UserActivityError.stringContainsNUL(field: "title"), .userActivityHandoffFailed),
            ("cancelled", CancellationError(), .userActivityHandoffFailed),
            ("a Handoff CocoaError keeps its code", CocoaError(.userActivityRemoteApplicationTimedOut), .userActivityRemoteApplicationTimedOut),
            ("unsupported keeps its code", CocoaError(.featureUnsupported), .featureUnsupported),
            ("another CocoaError", CocoaError(.fileNoSuchFile), .userActivityConnectionUnavailable),
            ("transport refused", TransportError.wrongProtocol(negotiated: nil), .userActivityConnectionUnavailable),
        ]
        for (what, error, code) in rows {
            XCTAssertEqual(HandoffFailure.code(for: error), code, what)
            let cocoa = HandoffFailure.error(for: error)
            XCTAssertEqual(cocoa.code, code, what)
            if !(error is CocoaError) {
                XCTAssertNotNil(cocoa.userInfo[NSLocalizedDescriptionKey], what)
                XCTAssertNotNil(cocoa.userInfo[NSUnderlyingErrorKey], what)
            }
        }
        let kept = CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: "kept"])
        XCTAssertEqual(HandoffFailure.error(for: kept).localizedDescription, "kept")
    }
}
