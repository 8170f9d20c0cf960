@testable import Baton
import BatonTestSupport
import XCTest

/// A delegate whose `continue` is written with a handler type that is none of the accepted
/// forms: it compiles, but it is not the protocol's method, so Baton never calls it.
final class MismatchedContinueDelegate: ApplicationDelegate {
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([Responder]) -> Void) -> Bool {
        calls += 1
        return true
    }
}

/// A delegate whose AppKit-form `continue` declines.
final class DecliningDelegate: ApplicationDelegate {
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        calls += 1
        return false
    }
}

/// A delegate whose UIKit-form `continue` handles the activity.
final class HandlingDelegate: ApplicationDelegate {
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool { true }
}

/// Continues an activity of a fresh type with `delegate` and returns the notices about it.
@MainActor
private func continueFreshActivity(with delegate: (any ApplicationDelegate)?) throws -> [String] {
    let type = unique("com.example.notice")
    Application.shared.manifest = AppManifest(appID: "com.example.notice", teamIdentifier: "TEAM1", activityTypes: [type])
    Application.shared.delegate = delegate
    Application.shared.finishLaunching()
    let data = try UserActivity(activityType: type).payload()
    var finished = false
    Application.shared.continueUserActivity(ofType: type, completionHandler: { finished = true }) { data }
    spin(until: { finished })
    return CapturedLog.shared.messages(mentioning: "continuation of \(type) was handled by nobody")
}

/// When a continuation ends with nobody handling it (no delegate, no form of
/// `application(_:continue:restorationHandler:)` implemented, or one that returned false, and
/// the activity is no document's), a notice names the likely cause.
final class UnhandledContinuationNoticeTests: BatonTestCase {
    func testAMismatchedSignatureIsNotCalledAndTheNoticeSaysWhichSignaturesBind() throws {
        try MainActor.assumeIsolated {
            let delegate = MismatchedContinueDelegate()
            let notices = try continueFreshActivity(with: delegate)
            XCTAssertEqual(delegate.calls, 0)
            XCTAssertEqual(notices.count, 1, "\(notices)")
            let notice = try XCTUnwrap(notices.first)
            XCTAssertTrue(notice.contains("signature does not match"), notice)
            XCTAssertTrue(notice.contains("restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool (AppKit)"), notice)
            XCTAssertTrue(notice.contains("([any UserActivityRestoring]?) -> Void (UIKit)"), notice)
            XCTAssertTrue(notice.contains("@MainActor"), notice)
        }
    }

    func testADelegateThatDeclinesIsNamed() throws {
        try MainActor.assumeIsolated {
            let delegate = DecliningDelegate()
            let notices = try continueFreshActivity(with: delegate)
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertEqual(notices.count, 1, "\(notices)")
            XCTAssertTrue(notices.first?.contains("returned false") == true, "\(notices)")
        }
    }

    func testNoDelegateIsNamed() throws {
        try MainActor.assumeIsolated {
            let notices = try continueFreshActivity(with: nil)
            XCTAssertEqual(notices.count, 1, "\(notices)")
            XCTAssertTrue(notices.first?.contains("no delegate") == true, "\(notices)")
        }
    }

    func testAHandledContinuationLogsNoNotice() throws {
        try MainActor.assumeIsolated {
            let delegate = HandlingDelegate()
            XCTAssertEqual(try continueFreshActivity(with: delegate), [])
        }
    }

    /// about-handoff, "Supporting a User Activity in Document-Based Apps": a declined
    /// document's activity opens the document, which is handling it.
    func testADocumentsActivityOpenedByTheRuntimeLogsNoNotice() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = shapesManifest
            DocumentController.shared.documentClass = NoteDocument.self
            let delegate = DecliningDelegate()
            Application.shared.delegate = delegate
            Application.shared.finishLaunching()
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(unique("notice")).note")
            try "hello".write(to: url, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: url) }
            let origin = UserActivity(activityType: "com.example.notes.editing")
            origin.userInfo = [UserActivity.documentURLKey: url]
            let data = try origin.payload()
            var finished = false
            Application.shared.continueUserActivity(ofType: "com.example.notes.editing", completionHandler: { finished = true }) { data }
            spin(until: { finished })
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertNotNil(DocumentController.shared.document(for: url))
            XCTAssertEqual(CapturedLog.shared.messages(mentioning: "handled by nobody").filter { $0.contains(url.lastPathComponent) }, [])
        }
    }
}
