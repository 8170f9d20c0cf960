@testable import Baton
import BatonTestSupport
import XCTest

let shapesManifest = AppManifest(
    appID: "com.example.shapes", teamIdentifier: "TEAM1",
    activityTypes: ["com.example.myapp.create-shape"],
    documentTypes: [.init(name: "Note", extensions: ["note"], activityType: "com.example.notes.editing")])

/// An activity's payload, made the way the originating side makes it.
@MainActor
func shapePayload(_ shape: String = "circle", type: String = "com.example.myapp.create-shape") throws -> Data {
    let activity = UserActivity(activityType: type)
    activity.userInfo = ["shape-type": shape, "activity-version": 1]
    return try activity.payload()
}

/// Launches the shared application with the Shapes manifest and `delegate`.
@MainActor
private func launch(_ delegate: HandoffDelegate) {
    Application.shared.manifest = shapesManifest
    Application.shared.delegate = delegate
    Application.shared.finishLaunching()
}

/// A new `.note` file holding "hello".
private func noteFile() throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).note")
    try "hello".write(to: url, atomically: true, encoding: .utf8)
    return url
}

/// The continuation sequence: implementing-handoff-in-your-app, "Receive User Activities in
/// the Application Delegate" and "Continue the Activity in Your App"; handoff-programming-guide,
/// "Continuing an Activity"; about-handoff, "Continuing an Activity Using the App Delegate".
final class ContinuationTests: BatonTestCase {
    func testWillThenContinueThenRestoreWithTheOriginalUserInfo() throws {
        try MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            let controller = ActivityController(title: "shapes")
            delegate.restorers = [controller]
            launch(delegate)
            let data = try shapePayload()
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") { data }
            XCTAssertEqual(delegate.events, ["will com.example.myapp.create-shape"], "willContinue comes at once")
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.events, ["will com.example.myapp.create-shape", "continue com.example.myapp.create-shape"])
            XCTAssertEqual(controller.restored.count, 1)
            XCTAssertEqual(controller.restored.first?.userInfo?["shape-type"] as? String, "circle")
            XCTAssertEqual(controller.restored.first?.userInfo?["activity-version"] as? Int, 1)
        }
    }

    func testTheRestorationHandlerMayBeCalledLater() throws {
        try MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            let controller = ActivityController(title: "later")
            delegate.deferRestoration = true
            launch(delegate)
            let data = try shapePayload()
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") { data }
            spin(until: { delegate.pendingRestoration != nil })
            XCTAssertTrue(controller.restored.isEmpty)
            MainLoop.idle { delegate.pendingRestoration?([controller]) }
            spin(until: { !controller.restored.isEmpty })
        }
    }

    func testAnUndeclaredTypeFailsWithoutFetching() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            launch(delegate)
            let fetched = LockedFlag()
            Application.shared.continueUserActivity(ofType: "com.example.other") { fetched.set(true); return Data() }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.events, ["will com.example.other", "fail com.example.other"])
            XCTAssertEqual(delegate.failure?.code, .userActivityHandoffFailed)
            XCTAssertTrue(delegate.failure?.localizedDescription.contains("does not declare") == true)
            XCTAssertFalse(fetched.value)
        }
    }

    /// about-handoff: "A user activity can be continued only in an app that has the same
    /// developer Team ID as the activity's source app and that supports the activity's type."
    func testAnotherTeamsActivityFails() throws {
        try MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            launch(delegate)
            let data = try shapePayload()
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape",
                                                    from: .init(teamIdentifier: "OTHERTEAM")) { data }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.failure?.code, .userActivityHandoffFailed)
            XCTAssertTrue(delegate.failure?.localizedDescription.contains("team OTHERTEAM") == true)
        }
    }

    func testAFetchThatFailsReportsConnectionUnavailable() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            launch(delegate)
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") {
                throw GLibError(domain: "g-io-error-quark", code: 39, message: "Connection refused")
            }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.failure?.code, .userActivityConnectionUnavailable)
            XCTAssertEqual(delegate.events.count, 2, "exactly one of continue or didFail")
        }
    }

    func testAFetchThatNeverCompletesTimesOut() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            launch(delegate)
            let cancelled = LockedFlag()
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape", timeout: .milliseconds(50)) {
                // A stalled peer: nothing ever arrives on this stream; cancellation ends it.
                let (stream, keepOpen) = AsyncStream<Int>.makeStream()
                for await _ in stream {}
                keepOpen.finish()
                cancelled.set(Task.isCancelled)
                throw CancellationError()
            }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.failure?.code, .userActivityRemoteApplicationTimedOut)
            spin(until: { cancelled.value })
            drainIdle()
            XCTAssertEqual(delegate.events.count, 2, "the late cancellation sends nothing more")
        }
    }

    func testAnOversizedPayloadFailsWithUserInfoTooLarge() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            launch(delegate)
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") {
                Data(count: UserActivity.payloadLimit + 1)
            }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.failure?.code, .userActivityHandoffUserInfoTooLarge)
        }
    }

    func testAPayloadOfAnotherTypeOrGarbageFails() throws {
        try MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            launch(delegate)
            let other = try shapePayload(type: "com.example.notes.editing")
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") { other }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.failure?.code, .userActivityHandoffFailed)
            delegate.events = []
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") { Data("junk".utf8) }
            spin(until: { delegate.finished })
            XCTAssertEqual(delegate.failure?.code, .userActivityHandoffFailed)
            XCTAssertTrue(delegate.failure?.userInfo[NSUnderlyingErrorKey] is UserActivityError)
        }
    }

    /// handoff-programming-guide, "Continuing an Activity", last note: no Handoff messages when
    /// the delegate returns false from willFinishLaunching.
    func testNothingIsSentWhenTheDelegateRefusedToFinishLaunching() throws {
        try MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            delegate.refuseLaunch = true
            launch(delegate)
            let data = try shapePayload()
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape") { data }
            drainIdle()
            drainIdle()
            XCTAssertEqual(delegate.events, [])
        }
    }

    /// handoff-programming-guide, "Continuing an Activity", note: the same when
    /// didFinishLaunching returns false. The dropped continuation still completes, but the
    /// originating side is not told it was continued.
    func testNothingIsSentWhenDidFinishLaunchingReturnedFalse() throws {
        try MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            delegate.refuseDidFinishLaunching = true
            launch(delegate)
            let data = try shapePayload()
            let completed = LockedFlag()
            let toldOrigin = LockedFlag()
            Application.shared.continueUserActivity(ofType: "com.example.myapp.create-shape",
                                                    whenContinued: { toldOrigin.set(true) },
                                                    completionHandler: { completed.set(true) }) { data }
            spin(until: { completed.value })
            drainIdle()
            XCTAssertEqual(delegate.events, [])
            XCTAssertFalse(toldOrigin.value)
        }
    }

    /// handoff-programming-guide, "Continuing an Activity", note: not even the failure message
    /// for a handoff file that cannot be read reaches a delegate that refused to launch.
    func testAnUnreadableHandoffFileTellsADelegateThatRefusedToLaunchNothing() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            delegate.refuseLaunch = true
            launch(delegate)
            let missing = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).handoff")
            Application.shared.continueUserActivity(fromFileAt: missing)
            XCTAssertEqual(delegate.events, [])
            delegate.refuseLaunch = false
            Application.shared.resetForTesting()
            launch(delegate)
            Application.shared.continueUserActivity(fromFileAt: missing)
            XCTAssertEqual(delegate.events, ["fail "], "a delegate that accepted launching hears of the failure")
        }
    }
}

final class NoteDocument: Document {
    static var restoredURLs: [URL] = []
    var text = ""
    override func read(from url: URL, ofType typeName: String) throws { text = try String(contentsOf: url, encoding: .utf8) }
    override func restoreUserActivityState(_ activity: UserActivity) {
        if let fileURL { NoteDocument.restoredURLs.append(fileURL) }
    }
}

/// about-handoff, "Supporting a User Activity in Document-Based Apps";
/// handoff-programming-guide, "Adopting Handoff in Document-Based Apps".
final class DocumentActivityTests: BatonTestCase {
    func testADocumentsActivityCarriesItsURLAndTheManifestsType() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = shapesManifest
            let url = try noteFile()
            let document = try Document(contentsOf: url, ofType: "Note")
            XCTAssertEqual(document.fileType, "Note")
            let activity = try XCTUnwrap(document.userActivity)
            XCTAssertEqual(activity.activityType, "com.example.notes.editing")
            spin(until: { !activity.needsSave })
            XCTAssertEqual(activity.userInfo?[UserActivity.documentURLKey] as? URL, url)
        }
    }

    func testTheDocumentsActivityIsCurrentWhenItsWindowIsMainAndInvalidOnceClosed() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = shapesManifest
            Application.shared.activate()
            let document = try Document(contentsOf: try noteFile(), ofType: "Note")
            let controller = WindowController(window: Window(title: "note"))
            document.addWindowController(controller)
            controller.showWindow(nil)
            let activity = try XCTUnwrap(document.userActivity)
            XCTAssertTrue(activity.isCurrent)
            XCTAssertTrue(controller.userActivity === activity)
            document.close()
            XCTAssertFalse(activity.isValid)
            XCTAssertNil(Application.shared.currentUserActivity)
            XCTAssertTrue(controller.window?.isClosed == true)
        }
    }

    /// about-handoff: if continue returns NO or is unimplemented, the document is opened with
    /// the document controller and receives restoreUserActivityState.
    func testWhenContinueDeclinesTheDocumentIsOpenedAndRestored() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = shapesManifest
            DocumentController.shared.documentClass = NoteDocument.self
            NoteDocument.restoredURLs = []
            let delegate = HandoffDelegate()
            delegate.handles = false
            Application.shared.delegate = delegate
            Application.shared.finishLaunching()
            let url = try noteFile()
            let origin = UserActivity(activityType: "com.example.notes.editing")
            origin.userInfo = [UserActivity.documentURLKey: url]
            let data = try origin.payload()
            Application.shared.continueUserActivity(ofType: "com.example.notes.editing") { data }
            spin(until: { !NoteDocument.restoredURLs.isEmpty })
            XCTAssertEqual(NoteDocument.restoredURLs, [url])
            let opened = DocumentController.shared.document(for: url) as? NoteDocument
            XCTAssertEqual(opened?.text, "hello")
        }
    }
}

/// The manifest in Apple's Info.plist keys (implementing-handoff-in-your-app, "Declare Handoff
/// Activities in Your App's Info.plist").
final class AppManifestTests: XCTestCase {
    func testLoadsAnInfoPlist() throws {
        let plist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict>
          <key>CFBundleIdentifier</key><string>com.example.myapp</string>
          <key>BatonTeamIdentifier</key><string>TEAM1</string>
          <key>NSUserActivityTypes</key>
          <array><string>com.example.myapp.create-shape</string><string>com.example.myapp.edit-shape</string></array>
          <key>CFBundleDocumentTypes</key>
          <array><dict>
            <key>CFBundleTypeName</key><string>Note</string>
            <key>CFBundleTypeExtensions</key><array><string>note</string></array>
            <key>NSUbiquitousDocumentUserActivityType</key><string>com.example.myapp.editing</string>
          </dict></array>
        </dict></plist>
        """
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).plist")
        try plist.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let manifest = try AppManifest(contentsOf: url)
        XCTAssertEqual(manifest.appID, "com.example.myapp")
        XCTAssertEqual(manifest.activityTypes, ["com.example.myapp.create-shape", "com.example.myapp.edit-shape"])
        XCTAssertEqual(manifest.documentTypes, [.init(name: "Note", extensions: ["note"], activityType: "com.example.myapp.editing")])
        XCTAssertTrue(manifest.canContinue(activityType: "com.example.myapp.editing", fromTeam: "TEAM1"))
        XCTAssertFalse(manifest.canContinue(activityType: "com.example.myapp.create-shape", fromTeam: "TEAM2"))
    }

    func testAPlistWithoutATeamIsRefusedByName() throws {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).plist")
        try "<plist version=\"1.0\"><dict><key>CFBundleIdentifier</key><string>x</string></dict></plist>"
            .write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertThrowsError(try AppManifest(contentsOf: url)) {
            XCTAssertEqual($0 as? AppManifestError, .missingKey("BatonTeamIdentifier", url.path))
        }
    }

    /// A manifest is local input: an oversized file is refused from its size, before it is read,
    /// and a file that is not a property list gets an error naming it, not an `NSError` dump.
    func testAnOversizedOrMalformedManifestIsRefusedByName() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let large = folder.appendingPathComponent("large.plist")
        XCTAssertTrue(FileManager.default.createFile(atPath: large.path, contents: nil))
        let handle = try FileHandle(forWritingTo: large)
        try handle.truncate(atOffset: UInt64(AppManifest.sizeLimit) + 1)  // sparse: no bytes written
        try handle.close()
        XCTAssertThrowsError(try AppManifest(contentsOf: large)) {
            XCTAssertEqual($0 as? AppManifestError, .tooLarge(large.path, size: AppManifest.sizeLimit + 1, limit: AppManifest.sizeLimit))
        }
        let garbage = folder.appendingPathComponent("garbage.plist")
        try Data("<plist><dict><key>unterminated".utf8).write(to: garbage)
        XCTAssertThrowsError(try AppManifest(contentsOf: garbage)) {
            XCTAssertEqual($0 as? AppManifestError, .notAPropertyList(garbage.path))
            XCTAssertEqual("\($0)", "\(garbage.path) is not a property list (XML or binary)")
        }
        XCTAssertThrowsError(try AppManifest(contentsOf: folder)) {
            XCTAssertEqual($0 as? AppManifestError, .unreadable(folder.path, "it is not a regular file"))
        }
    }
}
