@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A window controller that is a responder of the chain, for the chain's description.
private final class InspectedWindowController: WindowController {}

/// `Application.inspection()`: what an app shows of itself to `baton inspect` and the GTK
/// Inspector page — windows, key and main, responder chains (about-handoff, "Managing a User
/// Activity with Responders": the main window's chain supplies the current activity), the
/// current activity with its saves (handoff-programming-guide, Listing 2-3: saves are
/// coalesced) and payload size (handoff-programming-guide, "Best Practices": under 3 KB), and
/// where an action goes (AppKit's "Enabling Menu Items").
final class InspectionTests: BatonTestCase {
    func testWindowsAreInOrderWithKeyAndMainAndTheKeyChainRunsFromTheFirstResponderToTheDelegate() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            Application.shared.delegate = delegate
            let activity = UserActivity(activityType: "com.example.inspect.chain")
            let (back, _) = showActivityWindow("back", activity: nil)
            let (front, controller) = showActivityWindow("front", activity: activity)
            Application.shared.activate()

            let snapshot = Application.shared.inspection()
            XCTAssertEqual(snapshot.windows.map(\.title), ["front", "back"], "on-screen windows front to back")
            XCTAssertEqual(snapshot.keyWindowNumber, front.windowNumber)
            XCTAssertEqual(snapshot.mainWindowNumber, front.windowNumber)
            XCTAssertNil(snapshot.windows[1].responderChain, "only the key and main windows show their chain")
            XCTAssertFalse(snapshot.windows[1].isKey)
            XCTAssertEqual(back.windowNumber, snapshot.windows[1].number)

            let chain = try? XCTUnwrap(snapshot.keyWindow?.responderChain)
            XCTAssertEqual(chain?.map(\.description), [
                controller.view.responderDescription, controller.responderDescription, front.responderDescription,
                "Application", "HandoffDelegate",
            ])
            XCTAssertEqual(chain?.first?.isFirstResponder, true)
            XCTAssertEqual(chain?.filter(\.isFirstResponder).count, 1)
            XCTAssertEqual(chain?.map(\.hasUserActivity), [false, true, false, false, false],
                           "the controller holds the activity")
            XCTAssertEqual(chain?[1].userActivityType, "com.example.inspect.chain")
        }
    }

    func testAKeyPanelAndAnotherMainWindowEachShowTheirChain() {
        MainActor.assumeIsolated {
            let window = Window(title: "document")
            let controller = InspectedWindowController(window: window)
            _ = controller
            window.makeKeyAndOrderFront(nil)
            let panel = Panel(title: "inspector")
            panel.makeKeyAndOrderFront(nil)
            Application.shared.activate()

            let snapshot = Application.shared.inspection()
            XCTAssertEqual(snapshot.keyWindow?.title, "inspector")
            XCTAssertEqual(snapshot.mainWindow?.title, "document", "a panel is never main")
            XCTAssertEqual(snapshot.keyWindow?.isPanel, true)
            XCTAssertEqual(snapshot.mainWindow?.responderChain?.map(\.typeName),
                           ["Window", "InspectedWindowController", "Application"])
            XCTAssertEqual(snapshot.keyWindow?.responderChain?.map(\.typeName), ["Panel", "Application"])
        }
    }

    func testTheCurrentActivityShowsItsHolderSavesAndCoalescedRequests() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.inspect.saves")
            activity.title = "Notes"
            let (_, controller) = showActivityWindow("saves", activity: activity)
            Application.shared.activate()
            XCTAssertNil(Application.shared.inspection().currentActivity?.lastSaved, "not saved yet")

            for _ in 0..<5 { activity.needsSave = true }
            XCTAssertEqual(Application.shared.inspection().currentActivity?.needsSave, true)
            spin(until: { !activity.needsSave })

            let current = try? XCTUnwrap(Application.shared.inspection().currentActivity)
            XCTAssertEqual(current?.activityType, "com.example.inspect.saves")
            XCTAssertEqual(current?.title, "Notes")
            XCTAssertEqual(current?.holders, [controller.responderDescription])
            XCTAssertEqual(current?.isCurrent, true)
            XCTAssertEqual(current?.isManaged, true)
            XCTAssertEqual(current?.needsSave, false)
            XCTAssertEqual(current?.saveCount, 1)
            XCTAssertEqual(current?.coalescedSaveRequests, 4, "four requests folded into the one save")
            XCTAssertNotNil(current?.lastSaved)
            XCTAssertEqual(current?.advertising, .advertised)
        }
    }

    func testThePayloadSizeIsMeasuredAgainstTheAdviceAndTheHardCapWithoutSaving() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.inspect.size")
            let delegate = RecordingActivityDelegate()
            activity.delegate = delegate
            activity.becomeCurrent()
            activity.userInfo = ["small": "x"]
            let small = Application.shared.inspection().currentActivity
            XCTAssertEqual(small?.payloadAssessment, .withinAdvice)
            XCTAssertLessThan(small?.payloadSize ?? .max, ActivityInspection.payloadAdvisedSize)

            activity.userInfo = ["text": String(repeating: "a", count: 4 * 1024)]
            let over = Application.shared.inspection().currentActivity
            XCTAssertEqual(over?.payloadAssessment, .overAdvice)
            XCTAssertGreaterThan(over?.payloadSize ?? 0, 4 * 1024)

            activity.userInfo = ["data": Data(count: 70 * 1024)]
            let huge = Application.shared.inspection().currentActivity
            XCTAssertEqual(huge?.payloadAssessment, .overLimit)
            XCTAssertGreaterThan(huge?.payloadSize ?? 0, ActivityInspection.payloadLimit)
            XCTAssertEqual(delegate.willSave, 0, "inspecting does not save")
        }
    }

    func testEachReasonAnActivityIsNotAdvertisedIsTheOneTheRegistryApplies() {
        MainActor.assumeIsolated {
            let app = Application.shared
            let shown = UserActivity(activityType: "com.example.inspect.shown")
            let hiddenBehind = UserActivity(activityType: "com.example.inspect.behind")
            _ = showActivityWindow("behind", activity: hiddenBehind)
            _ = showActivityWindow("shown", activity: shown)
            app.activate()
            @MainActor func state(_ type: String) -> ActivityAdvertising? {
                let snapshot = app.inspection()
                return ([snapshot.currentActivity].compactMap { $0 } + snapshot.otherActivities)
                    .first { $0.activityType == type }?.advertising
            }
            XCTAssertEqual(state("com.example.inspect.shown"), .advertised)
            XCTAssertTrue(app.advertisedUserActivity === shown)
            XCTAssertEqual(state("com.example.inspect.behind"), .notCurrent,
                           "its responder is in a window that is not main")

            shown.isEligibleForHandoff = false
            XCTAssertEqual(state("com.example.inspect.shown"), .notEligibleForHandoff)
            XCTAssertNil(app.advertisedUserActivity)
            shown.isEligibleForHandoff = true

            shown.expirationDate = Date(timeIntervalSinceNow: -1)
            XCTAssertEqual(state("com.example.inspect.shown"), .expired)
            XCTAssertNil(app.advertisedUserActivity)
            shown.expirationDate = nil

            app.deactivate()
            XCTAssertEqual(state("com.example.inspect.shown"), .appInactive)
            XCTAssertNil(app.advertisedUserActivity)
            app.activate()
            XCTAssertTrue(app.advertisedUserActivity === shown)

            hiddenBehind.invalidate()
            XCTAssertEqual(state("com.example.inspect.behind"), .invalidated)
        }
    }

    func testTheManifestSaysWhetherTheTypeIsDeclaredAndTheTeam() {
        MainActor.assumeIsolated {
            Application.shared.manifest = AppManifest(appID: "com.example.inspect", teamIdentifier: "TEAM9",
                                                      activityTypes: ["com.example.inspect.declared"])
            let declared = UserActivity(activityType: "com.example.inspect.declared")
            declared.becomeCurrent()
            var snapshot = Application.shared.inspection()
            XCTAssertEqual(snapshot.appID, "com.example.inspect")
            XCTAssertEqual(snapshot.currentActivity?.declaredInManifest, true)
            XCTAssertEqual(snapshot.currentActivity?.teamIdentifier, "TEAM9")
            UserActivity(activityType: "com.example.inspect.undeclared").becomeCurrent()
            snapshot = Application.shared.inspection()
            XCTAssertEqual(snapshot.currentActivity?.declaredInManifest, false)
        }
    }

    func testAnActionNameShowsItsTargetAndWhetherTheMenusEnableIt() {
        MainActor.assumeIsolated {
            let validating = ValidatingCopyView(identifier: "editor")
            let content = View(identifier: "content")
            content.addSubview(validating)
            let window = Window(title: "actions")
            window.contentView = content
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            let edit = Menu(title: "Edit")
            edit.addItem(withTitle: "Copy", action: .copy, keyEquivalent: "c")
            let main = Menu()
            let editItem = MenuItem(title: "Edit", action: nil as AnyAction?, keyEquivalent: "")
            editItem.submenu = edit
            main.addItem(editItem)
            Application.shared.mainMenu = main

            XCTAssertTrue(window.makeFirstResponder(content))
            var copy = Application.shared.inspectAction(named: "copy")
            XCTAssertTrue(copy.isKnown)
            XCTAssertEqual(copy.menuItemTitle, "Copy")
            XCTAssertNil(copy.target, "nothing up the chain from content copies")
            XCTAssertFalse(copy.isEnabled)

            XCTAssertTrue(window.makeFirstResponder(validating))
            copy = Application.shared.inspectAction(named: "copy")
            XCTAssertEqual(copy.target, validating.responderDescription)
            XCTAssertEqual(copy.targetTypeName, "ValidatingCopyView")
            XCTAssertTrue(copy.isEnabled)
            validating.canCopy = false
            XCTAssertFalse(Application.shared.inspectAction(named: "copy").isEnabled, "the validator says no")
            XCTAssertEqual(Application.shared.inspection(actions: ["copy"]).actions.map(\.isEnabled), [false])

            XCTAssertTrue(Application.shared.inspectAction(named: "moveLeft").isKnown, "a standard key-binding command")
            XCTAssertFalse(Application.shared.inspectAction(named: "noSuchAction").isKnown)
        }
    }

    func testAnObserverHearsOfKeyFirstResponderAndActivityChangesOnceEachAndNothingAfterCancel() {
        MainActor.assumeIsolated {
            let (first, _) = showActivityWindow("first", activity: UserActivity(activityType: "com.example.inspect.a"))
            let (second, secondController) = showActivityWindow("second", activity: nil)
            Application.shared.activate()
            drainIdle()
            var seen: [ApplicationInspection] = []
            let observation = Application.shared.observeInspection { seen.append($0) }

            first.makeKeyAndOrderFront(nil)
            spin(until: { seen.count == 1 })
            drainIdle()
            XCTAssertEqual(seen.count, 1, "one change, one report")
            XCTAssertEqual(seen.last?.keyWindow?.title, "first")
            XCTAssertEqual(seen.last?.currentActivity?.activityType, "com.example.inspect.a")

            second.makeKeyAndOrderFront(nil)
            spin(until: { seen.count == 2 })
            XCTAssertNil(seen.last?.currentActivity, "the second window's chain holds no activity")

            let field = FocusView(identifier: "field")
            secondController.view.addSubview(field)
            XCTAssertTrue(second.makeFirstResponder(field))
            spin(until: { seen.count == 3 })
            XCTAssertEqual(seen.last?.keyWindow?.firstResponder, field.responderDescription)

            observation.cancel()
            first.makeKeyAndOrderFront(nil)
            drainIdle()
            XCTAssertEqual(seen.count, 3, "nothing after cancel")
        }
    }

    /// The summary `baton inspect --watch` follows: key window, first responder, current
    /// activity, once per change; a continuation's steps are recorded in order in the app's
    /// history, and nothing is reported after cancel.
    func testTheSummaryObserverAndTheContinuationHistoryFollowChanges() {
        MainActor.assumeIsolated {
            let (first, _) = showActivityWindow("summary-a", activity: UserActivity(activityType: "com.example.inspect.s"))
            let (second, secondController) = showActivityWindow("summary-b", activity: nil)
            Application.shared.activate()
            drainIdle()
            var seen: [InspectionSummary] = []
            let observation = Application.shared.observeInspectionSummary { seen.append($0) }
            first.makeKeyAndOrderFront(nil)
            spin(until: { seen.last?.keyWindow?.contains("summary-a") == true })
            XCTAssertEqual(seen.last?.currentActivityType, "com.example.inspect.s")
            let count = seen.count
            let field = FocusView(identifier: "summary-field")
            second.makeKeyAndOrderFront(nil)
            secondController.view.addSubview(field)
            XCTAssertTrue(second.makeFirstResponder(field))
            spin(until: { seen.last?.firstResponder == field.responderDescription })
            XCTAssertGreaterThan(seen.count, count)
            XCTAssertNil(seen.last?.currentActivityType)

            // A local continuation this app's manifest does not declare: asked, willContinue, didFail.
            let history = Application.shared.continuationHistory
            let before = history.records.count
            Application.shared.continueUserActivity(ofType: "com.example.inspect.undeclared") { Data() }
            let record = history.records.last
            XCTAssertEqual(history.records.count, min(before + 1, ContinuationHistory.capacity))
            XCTAssertEqual(record?.activityType, "com.example.inspect.undeclared")
            XCTAssertEqual(record?.steps.map(\.kind).prefix(2), [.asked, .willContinue])
            if case .failed(let code, _)? = record?.steps.last?.kind {
                XCTAssertEqual(code, CocoaError.userActivityHandoffFailed.rawValue)
            } else {
                XCTFail("\(String(describing: record))")
            }

            observation.cancel()
            let after = seen.count
            first.makeKeyAndOrderFront(nil)
            drainIdle()
            XCTAssertEqual(seen.count, after, "nothing after cancel")
        }
    }

    /// The history keeps the last `capacity` records and at most `maximumSteps` steps each.
    func testTheHistoryIsACappedRing() {
        MainActor.assumeIsolated {
            let history = ContinuationHistory()
            for index in 0..<(ContinuationHistory.capacity + 5) { history.begin(activityType: "t\(index)") }
            XCTAssertEqual(history.records.count, ContinuationHistory.capacity)
            XCTAssertEqual(history.records.first?.activityType, "t5")
            let id = history.begin(activityType: "many")
            for _ in 0..<(ContinuationHistory.maximumSteps + 3) { history.record(.streamsOpened, in: id) }
            XCTAssertEqual(history.records.last?.steps.count, ContinuationHistory.maximumSteps)
            XCTAssertEqual(history.records.last?.droppedSteps, 4)
        }
    }

    func testTheSnapshotRoundTripsThroughJSON() throws {
        let snapshot = MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.inspect.json")
            activity.webpageURL = URL(string: "https://example.com/note")
            _ = showActivityWindow("json", activity: activity)
            Application.shared.activate()
            return Application.shared.inspection(actions: ["copy"])
        }
        let decoded = try InspectionJSON.decoder().decode(ApplicationInspection.self, from: InspectionJSON.encoder().encode(snapshot))
        XCTAssertEqual(decoded, snapshot)
        XCTAssertEqual(decoded.currentActivity?.webpageURL?.absoluteString, "https://example.com/note")
    }
}
