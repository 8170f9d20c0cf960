import Baton
import BatonTestSupport
import XCTest

// Swift translations of the Objective-C listings of the "Handoff Programming Guide"
// (handoff-programming-guide.txt) whose code the guide includes: Listing 2-3, 2-6 and 2-9.
// Each keeps the listing's statements in order, message sends becoming property and method
// calls, with types renamed (NSUserActivity → UserActivity, NSApplication → Application,
// NSWindowController → WindowController). Deviations, each said where it is:
// - 2-3: Linux has no bundle Info.plist, so `[[NSBundle mainBundle] bundleIdentifier]` is the
//   manifest's `CFBundleIdentifier`, `Application.shared.manifest?.appID`.
// - 2-6: the app delegate's text field is a stand-in (`TextField`, only `stringValue`).

/// AppKit's `NSTextField`, only `stringValue` (the stand-in Listing 2-6's delegate writes to).
final class TextField {
    var stringValue = ""
}

/// A Reminders-style list controller (Listing 2-3's "method that gets called whenever the user
/// switches to a different reminder list").
final class ReminderListController: ViewController, UserActivityDelegate {
    var selectedList = "Groceries"
    var updatedLists: [String] = []

    /// The list view, which takes the focus: the controller is then in the key window's
    /// responder chain, where its activity becomes current.
    override func loadView() { view = ListView(identifier: "lists") }

    func userDidSelectList(_ list: String) {
        selectedList = list
        // Listing 2-3, translated.
        // UIResponder and NSResponder have a userActivity property
        var currentActivity = self.userActivity
        // Build an activity type using the app's bundle identifier
        let bundleName = Application.shared.manifest?.appID ?? ""  // [[NSBundle mainBundle] bundleIdentifier]
        let myActivityType = bundleName + ".selected-list"
        if currentActivity?.activityType != myActivityType {
            currentActivity?.invalidate()
            currentActivity = UserActivity(activityType: myActivityType)
            currentActivity?.delegate = self
            currentActivity?.needsSave = true
            self.userActivity = currentActivity
        } else {
            // Already tracking user activity of this type
            currentActivity?.needsSave = true
        }
    }

    // The responder's save ("Adopting Handoff in Responders"): the list goes in userInfo.
    override func updateUserActivityState(_ activity: UserActivity) {
        updatedLists.append(selectedList)
        activity.addUserInfoEntries(from: ["list": selectedList])
    }
}

/// A view that accepts first responder status.
final class ListView: View {
    override var acceptsFirstResponder: Bool { true }
}

/// A window controller that configures its window from a continued activity (the guide, after
/// Listing 2-6: "each controller object overrides that method to configure its window").
final class ConfiguringWindowController: WindowController {
    var restoredTitles: [String?] = []
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        restoredTitles.append(userActivity.title)
    }
}

/// Listing 2-6's app delegate.
final class ListingTwoSixAppDelegate: ApplicationDelegate {
    let appDelegateTextField = TextField()
    var windowControllers: [WindowController] = []

    // Listing 2-6, translated (AppKit's signature: `void (^)(NSArray *)` is
    // `([any UserActivityRestoring]) -> Void`).
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        var handled = false
        // Extract the payload
        let type = userActivity.activityType
        let title = userActivity.title
        let userInfo = userActivity.userInfo
        // Assume the app delegate has a text field to display the activity information
        appDelegateTextField.stringValue = String(
            format: "User activity is of type %@, has title %@, and user info %@",
            type, title ?? "(null)", "\(userInfo ?? [:])")
        restorationHandler(self.windowControllers)
        handled = true
        return handled
    }
}

/// The mail composer of Listing 2-9, the delegate of its streams-supporting activity.
@MainActor
protocol StreamsListing: AnyObject {
    func startEditingMail() -> UserActivity
}

final class MailComposer: StreamsListing, UserActivityDelegate {
    /// Listing 2-9, translated. It uses `init()`, deprecated in Apple's SDK (and Baton's), so
    /// the listing is marked deprecated too; the test calls it through `StreamsListing`.
    @available(*, deprecated, message: "Listing 2-9 uses UserActivity's deprecated init()")
    func startEditingMail() -> UserActivity {
        let activity = UserActivity()
        activity.title = "Editing Mail"
        activity.supportsContinuationStreams = true
        activity.delegate = self
        activity.becomeCurrent()
        return activity
    }

    func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                      outputStream: ContinuationOutputStream) {}
}

private let remindersManifest = AppManifest(appID: "com.example.reminders", teamIdentifier: "TEAM1",
                                            activityTypes: ["com.example.reminders.selected-list"])

/// handoff-programming-guide.txt.
final class HandoffProgrammingGuideListingTests: PortingTestCase {
    /// "Specifying an Activity Type", Listing 2-3: the first selection makes an activity of the
    /// bundle's type with the controller as delegate; the save goes through the responder's
    /// `updateUserActivityState(_:)`; a second selection keeps the activity and saves again.
    func testListing2_3TracksTheSelectedListInOneActivity() throws {
        MainActor.assumeIsolated {
            launch(remindersManifest, ListingTwoSixAppDelegate())
            let controller = ReminderListController()
            let window = Window(title: "Reminders", contentViewController: controller)
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(controller.view)
            controller.userDidSelectList("Work")
            let activity = controller.userActivity
            XCTAssertEqual(activity?.activityType, "com.example.reminders.selected-list")
            XCTAssertTrue(activity?.delegate === controller)
            XCTAssertEqual(activity?.isCurrent, true, "the key window's controller's activity is current")
            spin(until: { activity?.needsSave == false })
            XCTAssertEqual(activity?.userInfo?["list"] as? String, "Work")

            controller.userDidSelectList("Home")
            XCTAssertTrue(controller.userActivity === activity, "an activity of the same type is kept")
            spin(until: { activity?.needsSave == false })
            XCTAssertEqual(activity?.userInfo?["list"] as? String, "Home")
            XCTAssertEqual(controller.updatedLists, ["Work", "Home"])
        }
    }

    /// "Continuing an Activity", Listing 2-6: the delegate (AppKit's signature) is called,
    /// writes the activity into its text field, and each window controller it passes gets
    /// `restoreUserActivityState(_:)`.
    func testListing2_6RestoresTheDelegatesWindowControllers() throws {
        try MainActor.assumeIsolated {
            let delegate = ListingTwoSixAppDelegate()
            let first = ConfiguringWindowController(window: Window(title: "one"))
            let second = ConfiguringWindowController(window: Window(title: "two"))
            delegate.windowControllers = [first, second]
            launch(remindersManifest, delegate)
            let activity = UserActivity(activityType: "com.example.reminders.selected-list")
            activity.title = "Groceries"
            activity.userInfo = ["list": "Groceries"]
            try handOff(activity)
            XCTAssertEqual(first.restoredTitles, ["Groceries"])
            XCTAssertEqual(second.restoredTitles, ["Groceries"])
            XCTAssertTrue(delegate.appDelegateTextField.stringValue.hasPrefix(
                "User activity is of type com.example.reminders.selected-list, has title Groceries, and user info"))
        }
    }

    /// "Using Continuation Streams", Listing 2-9: `init()` makes an activity of the first type
    /// the manifest declares (Foundation's rule for the deprecated `init()`), and the listing
    /// makes it current, supporting streams, with the composer as its delegate.
    func testListing2_9MakesAStreamsSupportingActivityCurrent() throws {
        MainActor.assumeIsolated {
            let mailManifest = AppManifest(appID: "com.example.mail", teamIdentifier: "TEAM1",
                                           activityTypes: ["com.example.mail.editing"])
            launch(mailManifest, ListingTwoSixAppDelegate())
            let composer = MailComposer()
            let listing: any StreamsListing = composer
            let activity = listing.startEditingMail()
            XCTAssertEqual(activity.activityType, "com.example.mail.editing")
            XCTAssertEqual(activity.title, "Editing Mail")
            XCTAssertTrue(activity.supportsContinuationStreams)
            XCTAssertTrue(activity.delegate === composer)
            XCTAssertTrue(activity.isCurrent)
            XCTAssertTrue(Application.shared.currentUserActivity === activity)
        }
    }
}
