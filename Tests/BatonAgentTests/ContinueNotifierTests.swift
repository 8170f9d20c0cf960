import Baton
import BatonAgent
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// Continue notifications against the test's own notification server (`NotificationServerStandIn`,
/// not a desktop's) on a private session bus (`dbus-daemon --session`): nothing of the
/// machine's session is used.
final class ContinueNotifierTests: XCTestCase {
    private var root: URL!
    private var bus: RunningProcess?

    override func setUpWithError() throws {
        root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-notify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDown() {
        bus?.terminate()
        bus?.waitForExit(timeout: 10)
        try? FileManager.default.removeItem(at: root)
    }

    /// Starts a private session bus; returns its address.
    private func startBus() throws -> String {
        let address = "unix:path=\(root.path)/bus"
        let process = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
                                         ["--session", "--nofork", "--print-address", "--address=\(address)"])
        bus = process
        XCTAssertNotNil(process.waitForLine(containing: "unix:path="), process.output)
        return address
    }

    private static func activity(_ device: String, _ title: String?, type: String = "com.example.mail.compose",
                                 sequence: UInt64 = 1) -> NearbyActivity {
        NearbyActivity(device: device, sequence: sequence, activityType: type, title: title, appID: "com.example.mail",
                       teamIdentifier: "TEAM")
    }

    func testPostsReplacesWithdrawsContinuesWithTheTokenAndFollowsTheServer() throws {
        let address = try startBus()
        try MainActor.assumeIsolated {
            drainIdle()  // the loop's own sources exist before the count is taken
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var server: NotificationServerStandIn? = try NotificationServerStandIn(address: address)
            var continued: [(NearbyActivity, String?)] = []
            let notifier = ContinueNotifier(busAddress: address, destination: { $0.activityType == "nowhere" ? nil : "Mail" },
                                            onContinue: { continued.append(($0, $1)) })
            notifier.start()
            spin(until: { notifier.status == .posting })

            // Posted: one per activity that can continue here; remote text made safe.
            let hostile = Self.activity("Ada's <i>laptop</i>", "<b>Draft</b> & \u{1B}[31mred\u{202E}")
            notifier.update([hostile, Self.activity("Other", "Not here", type: "nowhere")])
            spin(until: { server!.notifications.count == 1 })
            let first = server!.notifications[0]
            XCTAssertEqual(first.replacesID, 0)
            XCTAssertEqual(first.summary, "Continue <b>Draft</b> & \\u{1B}[31mred\\u{202E} from Ada's <i>laptop</i>")
            XCTAssertEqual(first.body, "&lt;b&gt;Draft&lt;/b&gt; &amp; \\u{1B}[31mred\\u{202E} — in Mail")
            XCTAssertEqual(first.actions, ["continue", "Continue", "default", "Continue"])

            // Changed: replaced in place.
            let second = Self.activity("Ada's <i>laptop</i>", "Second draft", sequence: 2)
            notifier.update([second])
            spin(until: { server!.notifications.count == 2 })
            XCTAssertEqual(server!.notifications[1].replacesID, first.id)
            XCTAssertEqual(server!.notifications[1].summary, "Continue Second draft from Ada's <i>laptop</i>")
            notifier.update([second])  // unchanged: nothing sent (checked by the counts below)

            // Clicked: the activity and the token sent before the action. Signals from another
            // connection, and for ids not the notifier's, are ignored.
            let stranger = try NotificationServerStandIn.connect(address)
            server!.emit("ActionInvoked", first.id, "continue", from: stranger)
            server!.click(first.id + 100, token: "not-ours")
            server!.click(first.id, action: "something-else")
            server!.click(first.id, token: "test-token")
            spin(until: { !continued.isEmpty })
            XCTAssertEqual(continued.count, 1)
            XCTAssertEqual(continued[0].0, second)
            XCTAssertEqual(continued[0].1, "test-token")
            server!.click(first.id, action: "default")
            spin(until: { continued.count == 2 })
            XCTAssertNil(continued[1].1, "a token is used once")
            g_dbus_connection_close_sync(stranger, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(stranger))

            // Gone: withdrawn.
            notifier.update([])
            spin(until: { server!.closed == [first.id] && notifier.shownIDs.isEmpty })
            XCTAssertEqual(server!.notifications.count, 2)
            XCTAssertEqual(notifier.shownIDs, [:])

            // The server goes and another takes the name: the current notification is posted anew.
            notifier.update([second])
            spin(until: { server!.notifications.count == 3 })
            server!.close()
            server = nil
            spin(until: { notifier.status == .noServer })
            let next = try NotificationServerStandIn(address: address)
            spin(until: { next.notifications.count == 1 })
            XCTAssertEqual(next.notifications[0].replacesID, 0, "the old server's ids died with it")
            XCTAssertEqual(next.notifications[0].summary, "Continue Second draft from Ada's <i>laptop</i>")
            spin(until: { notifier.shownIDs.count == 1 })

            // Stopped: what it showed is withdrawn, and every callback it gave GLib is released.
            notifier.stop()
            spin(until: { next.closed == [next.notifications[0].id] })
            XCTAssertEqual(continued.count, 2)
            next.close()
            spin(until: { LoopDiagnostics.liveCallbackBoxes <= boxesBefore + 1 })  // + 1: spin's own deadline
        }
    }

    /// Dismissed by the person: not shown again until the activity changes.
    func testADismissedNotificationStaysDismissedUntilTheActivityChanges() throws {
        let address = try startBus()
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: address)
            let notifier = ContinueNotifier(busAddress: address, destination: { _ in "Mail" }, onContinue: { _, _ in })
            notifier.start()
            spin(until: { notifier.status == .posting })
            let draft = Self.activity("A", "Draft")
            notifier.update([draft])
            spin(until: { notifier.shownIDs.count == 1 })
            let id = notifier.shownIDs["A"]!
            server.dismiss(id)
            spin(until: { notifier.shownIDs.isEmpty })
            notifier.update([draft])
            notifier.update([Self.activity("A", "Draft, edited", sequence: 2)])
            spin(until: { server.notifications.count == 2 })
            XCTAssertEqual(server.notifications[1].replacesID, 0)
            XCTAssertEqual(server.notifications[1].summary, "Continue Draft, edited from A")
            notifier.stop()
            server.close()
        }
    }

    /// A click that reaches the notifier before the server's reply to `Notify` (the server
    /// emits `ActivationToken` and `ActionInvoked` before it answers) still continues, with its
    /// token. Seen in a loaded CI run: the test clicked as soon as the server had the
    /// notification, and the click was dropped because the id was not known yet.
    func testAClickBeforeTheNotifyReplyStillContinues() throws {
        let address = try startBus()
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: address)
            server.clickOnNotify = ("continue", "early-token")
            var continued: [(NearbyActivity, String?)] = []
            let notifier = ContinueNotifier(busAddress: address, destination: { _ in "Mail" },
                                            onContinue: { continued.append(($0, $1)) })
            notifier.start()
            spin(until: { notifier.status == .posting })
            let draft = Self.activity("A", "Draft")
            notifier.update([draft])
            spin(until: { !continued.isEmpty })
            XCTAssertEqual(continued.count, 1)
            XCTAssertEqual(continued.first?.0, draft)
            XCTAssertEqual(continued.first?.1, "early-token")
            spin(until: { notifier.shownIDs.count == 1 })
            notifier.stop()
            server.close()
        }
    }

    /// No bus, or no server on it: off, quietly; turned off: never connects.
    func testWithoutABusOrAServerOrWhenTurnedOffItIsOff() throws {
        let address = try startBus()
        let rootPath = root.path
        MainActor.assumeIsolated {
            let nowhere = ContinueNotifier(busAddress: "unix:path=\(rootPath)/no-such-bus", destination: { _ in "Mail" },
                                           onContinue: { _, _ in })
            nowhere.start()
            XCTAssertEqual(nowhere.status, .connecting)
            spin(until: { nowhere.status == .off })
            nowhere.update([Self.activity("A", "Draft")])
            nowhere.stop()

            let noServer = ContinueNotifier(busAddress: address, destination: { _ in "Mail" }, onContinue: { _, _ in })
            noServer.start()
            spin(until: { noServer.status == .noServer })
            noServer.update([Self.activity("A", "Draft")])
            XCTAssertEqual(noServer.shownIDs, [:])
            noServer.stop()

            let disabled = ContinueNotifier(enabled: false, busAddress: address, destination: { _ in "Mail" }, onContinue: { _, _ in })
            disabled.start()
            XCTAssertEqual(disabled.status, .off)
            XCTAssertNil(ContinueNotifier.sessionBusAddress(environment: ["XDG_RUNTIME_DIR": rootPath + "/none"]), "no bus socket there")
            XCTAssertEqual(ContinueNotifier.sessionBusAddress(environment: ["XDG_RUNTIME_DIR": rootPath, "DBUS_SESSION_BUS_ADDRESS": address]),
                           address)
        }
    }
}
