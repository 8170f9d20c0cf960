@testable import Baton
import BatonTestSupport
import XCTest

// The one file of this target that imports Baton with `@testable`, for the reset between
// tests and the payload of a continuation. The listings' files import Baton plainly, so they
// compile against Baton's public API only, as an app's code does.

/// A fresh application for each test.
class PortingTestCase: XCTestCase {
    override func setUp() async throws {
        await MainActor.run { resetApplication() }
    }

    override func tearDown() async throws {
        await MainActor.run { resetApplication() }
    }
}

/// Back to a fresh application, with no delegate.
@MainActor private func resetApplication() {
    Application.shared.resetForTesting()
    launchedDelegate = nil
}

/// The delegate of the running test (the application holds its delegate weakly, as AppKit does).
@MainActor private var launchedDelegate: (any ApplicationDelegate)?

/// Launches the shared application with `manifest` and `delegate`, which is kept until the
/// test ends.
@MainActor
func launch(_ manifest: AppManifest, _ delegate: any ApplicationDelegate) {
    launchedDelegate = delegate
    Application.shared.manifest = manifest
    Application.shared.delegate = delegate
    Application.shared.finishLaunching()
}

/// Continues `activity` in this app as if it came from another device of the group: its
/// payload is made as the originating side makes it and offered through
/// `Application.continueUserActivity(ofType:…)`, the entry point every continuation takes.
/// Returns once the continuation has finished (either way) on the real GLib loop.
@MainActor
func handOff(_ activity: UserActivity, file: StaticString = #filePath, line: UInt = #line) throws {
    let data = try activity.payload()
    var finished = false
    Application.shared.continueUserActivity(ofType: activity.activityType, title: activity.title,
                                            completionHandler: { finished = true }) { data }
    spin(until: { finished }, file: file, line: line)
}

/// Forgets `DocumentController.shared`, so that the next controller made becomes shared, as
/// the first one made in an app's process does.
@MainActor
func forgetSharedDocumentController() {
    DocumentController.forgetShared()
}

/// Makes `application` the shared application, or, with nil, lets the next one made be it.
@MainActor
func replaceSharedApplication(with application: Application?) {
    Application.replaceSharedForTesting(with: application)
}
