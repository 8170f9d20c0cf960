@testable import BatonAgent
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// The agent's cap on the calls one app has waiting (`Agent.maximumPendingCallsPerApp`, 8):
/// calls it answers later (`Inspect`, which waits on the other apps) count while they wait;
/// past the cap a call is refused at once (`org.baton.Agent1.Error.Refused`), so one app
/// cannot pile up work in the agent, and the calls within it are still answered.
final class AgentWaitingCallsTests: AgentTestCase {
    /// The replies of calls sent at once, as they come.
    private final class Replies: @unchecked Sendable {
        var answered = 0
        /// Each reply's D-Bus error name (nil: answered), or a local error's words.
        var errorNames: [String?] = []
        var timedOut = false
    }

    /// Sends `Inspect` (every app, no actions) on `connection`; its reply goes to `replies` on
    /// the thread-default context.
    private func sendInspect(on connection: OpaquePointer, to replies: Unmanaged<Replies>) throws {
        let arguments = try Variant.tuple([.string(""), .array(elementType: "s", [])]).makeGVariant()
        "(s)".withCString { replyType in
            g_dbus_connection_call(connection, nil, AgentInterface.agentPath, AgentInterface.agentName, "Inspect", arguments,
                                   baton_variant_type(replyType), G_DBUS_CALL_FLAGS_NONE, 60_000, nil, { source, result, data in
                let replies = Unmanaged<Replies>.fromOpaque(data!).takeUnretainedValue()
                var error: UnsafeMutablePointer<GError>?
                if let reply = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) { g_variant_unref(reply) }
                let failure = error.map { GLibError(consuming: $0) }
                replies.errorNames.append(failure.map { $0.remoteDBusErrorName ?? "\($0)" })
                replies.answered += 1
            }, replies.toOpaque())
        }
    }

    func testInspectionsPastTheCapAreRefusedAtOnceAndTheOthersAnswered() throws {
        let folders = try devices("A")
        _ = try agent(folders[0], socket: socket("a.sock"))
        // An app that never answers: each inspection waits on it (up to the agent's deadline).
        let silent = try RawAgentClient(socket: socket("a.sock"))
        try silent.joinAsSilentActiveApp("com.example.silent", offering: "com.example.silent.editing")
        let tool = try RawAgentClient(socket: socket("a.sock"))
        try tool.join(as: "com.example.tool")

        // Ten calls sent in one go from one thread, their replies taken on a context of this
        // test, iterated until all have come or 60 s have passed.
        let context = g_main_context_new()!
        defer { g_main_context_unref(context) }
        g_main_context_push_thread_default(context)
        defer { g_main_context_pop_thread_default(context) }
        let replies = Replies()
        let box = Unmanaged.passRetained(replies)
        defer { box.release() }
        let count = 10
        for _ in 0..<count { try sendInspect(on: tool.connection, to: box) }
        let deadline = g_timeout_source_new_seconds(60)!
        defer {
            g_source_destroy(deadline)
            g_source_unref(deadline)
        }
        g_source_set_callback(deadline, { data in
            Unmanaged<Replies>.fromOpaque(data!).takeUnretainedValue().timedOut = true
            return 0
        }, box.toOpaque(), nil)
        g_source_attach(deadline, context)
        while replies.answered < count && !replies.timedOut { g_main_context_iteration(context, 1) }

        XCTAssertEqual(replies.answered, count, "every call is answered")
        let refused = replies.errorNames.filter { $0 == HandoffFailure.AgentErrorName.refused.rawValue }
        XCTAssertEqual(refused.count, count - 8, "the calls past the 8 waiting are refused: \(replies.errorNames)")
        XCTAssertEqual(replies.errorNames.filter { $0 == nil }.count, 8, "the 8 within the cap are answered: \(replies.errorNames)")
        XCTAssertEqual(replies.errorNames.prefix(count - 8).filter { $0 != nil }.count, count - 8,
                       "the refusals come first, before any inspection ends: \(replies.errorNames)")
        withExtendedLifetime(silent) {}
    }
}
