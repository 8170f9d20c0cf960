@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// Issue 9, "Trust": verdicts come from typed errors — the D-Bus error name GLib's D-Bus error
/// API reads from the reply, GIO's error quark and code — never from the message's text, and a
/// malformed reply ends as `userActivityHandoffFailed`, not "connection unavailable".
final class HandoffVerdictTests: XCTestCase {
    /// A GError as GDBus makes it for a peer's D-Bus error reply.
    private func remote(_ name: String, _ message: String) -> GLibError {
        GLibError(consuming: g_dbus_error_new_for_dbus_error(name, message))
    }

    private func io(_ code: GIOErrorEnum, _ message: String) -> GLibError {
        GLibError(consuming: g_error_new_literal(g_io_error_quark(), gint(code.rawValue), message))
    }

    func testGLibErrorKnowsTheRemoteDBusErrorName() {
        let error = remote("org.baton.Error.TooLarge", "4 MiB")
        XCTAssertEqual(error.remoteDBusErrorName, "org.baton.Error.TooLarge")
        XCTAssertEqual(error.message, "4 MiB", "GDBus's prefix stripped")
        XCTAssertNil(io(G_IO_ERROR_TIMED_OUT, "org.baton.Error.TooLarge").remoteDBusErrorName, "the text decides nothing")
        XCTAssertTrue(io(G_IO_ERROR_TIMED_OUT, "x").isIOError(G_IO_ERROR_TIMED_OUT))
        XCTAssertFalse(io(G_IO_ERROR_CLOSED, "x").isIOError(G_IO_ERROR_TIMED_OUT))
        XCTAssertFalse(GLibError(domain: "other-quark", code: Int32(G_IO_ERROR_TIMED_OUT.rawValue), message: "").isIOError(G_IO_ERROR_TIMED_OUT))
        XCTAssertTrue(io(G_IO_ERROR_CANCELLED, "x").isCancellation)
    }

    func testEachVerdictComesFromTheErrorsType() {
        func code(_ error: any Error) -> CocoaError.Code { ContinuityNode.handoffError(for: error).code }
        XCTAssertEqual(code(remote(DeviceInterface.ErrorName.noStreams, "no")), .featureUnsupported)
        XCTAssertEqual(code(remote(DeviceInterface.ErrorName.tooLarge, "big")), .userActivityHandoffUserInfoTooLarge)
        XCTAssertEqual(code(remote(DeviceInterface.ErrorName.notCurrent, "gone")), .userActivityHandoffFailed)
        XCTAssertEqual(code(remote(DeviceInterface.ErrorName.failed, "x")), .userActivityHandoffFailed)
        XCTAssertEqual(code(remote(DeviceInterface.ErrorName.refused, "revoked")), .userActivityHandoffFailed)
        XCTAssertEqual(code(io(G_IO_ERROR_TIMED_OUT, "Timeout was reached")), .userActivityRemoteApplicationTimedOut)
        XCTAssertEqual(code(io(G_IO_ERROR_CLOSED, "The connection is closed")), .userActivityConnectionUnavailable)
        // A message that merely mentions an error name decides nothing.
        XCTAssertEqual(code(io(G_IO_ERROR_CLOSED, "GDBus.Error:org.baton.Error.TooLarge: no")), .userActivityConnectionUnavailable)
        // A reply GDBus found of the wrong type, or one that cannot be read: the peer answered
        // with something malformed — the handoff failed, the connection did not.
        XCTAssertEqual(code(io(G_IO_ERROR_INVALID_ARGUMENT, "Method returned type '(s)', but expected '(ay)'")), .userActivityHandoffFailed)
        XCTAssertEqual(code(PeerProtocolError.malformed("the reply to FetchPayload cannot be read")), .userActivityHandoffFailed)
    }
}
