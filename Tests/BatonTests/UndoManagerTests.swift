@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A document-like model whose changes register their undo, as Apple's examples do.
@MainActor
final class Counter {
    var value = 0
    let undoManager: UndoManager
    init(_ undoManager: UndoManager) { self.undoManager = undoManager }

    /// `isUndoing`/`isRedoing` as each change saw them.
    var modes: [String] = []

    func set(_ newValue: Int) {
        modes.append(undoManager.isUndoing ? "undoing" : undoManager.isRedoing ? "redoing" : "doing")
        let old = value
        undoManager.registerUndo(withTarget: self) { $0.set(old) }
        value = newValue
    }
}

/// Foundation's UndoManager (https://developer.apple.com/documentation/foundation/undomanager),
/// on the real GLib loop for groupsByEvent.
final class UndoManagerTests: BatonTestCase {
    /// registerUndo(withTarget:handler:), undo(), redo(), canUndo/canRedo, isUndoing/isRedoing:
    /// what undo registers becomes the redo operation
    /// (https://developer.apple.com/documentation/foundation/undomanager/registerundo(withtarget:handler:)).
    func testUndoAndRedoWithExplicitGroups() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            manager.groupsByEvent = false
            let counter = Counter(manager)
            XCTAssertFalse(manager.canUndo)
            manager.beginUndoGrouping()
            counter.set(1)
            manager.setActionName("Set to 1")
            manager.endUndoGrouping()
            manager.beginUndoGrouping()
            counter.set(2)
            counter.set(3)
            manager.setActionName("Set twice")
            manager.endUndoGrouping()
            XCTAssertTrue(manager.canUndo)
            XCTAssertFalse(manager.canRedo)
            XCTAssertEqual(manager.undoActionName, "Set twice")

            manager.undo()
            XCTAssertEqual(counter.value, 1, "a group is undone as a whole, last change first")
            XCTAssertEqual(counter.modes.suffix(2), ["undoing", "undoing"])
            XCTAssertFalse(manager.isUndoing)
            XCTAssertTrue(manager.canRedo)
            XCTAssertEqual(manager.redoActionName, "Set twice")
            XCTAssertEqual(manager.undoActionName, "Set to 1")
            manager.redo()
            XCTAssertEqual(counter.value, 3)
            XCTAssertEqual(counter.modes.suffix(2), ["redoing", "redoing"])
            XCTAssertFalse(manager.isRedoing)
            manager.undo()
            manager.undo()
            XCTAssertEqual(counter.value, 0)
            XCTAssertFalse(manager.canUndo)
            manager.redo()
            XCTAssertEqual(counter.value, 1)
            // A new change clears the redo stack.
            manager.beginUndoGrouping()
            counter.set(5)
            manager.endUndoGrouping()
            XCTAssertFalse(manager.canRedo)
        }
    }

    /// groupsByEvent: a group opens at the first registration and closes at the end of the
    /// loop's turn (https://developer.apple.com/documentation/foundation/undomanager/groupsbyevent).
    func testGroupsByEventGroupsOneTurnOfTheLoop() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            XCTAssertTrue(manager.groupsByEvent, "true by default")
            let counter = Counter(manager)
            var turnsDone = 0
            MainLoop.idle(priority: .high) {
                counter.set(1)
                counter.set(2)
                XCTAssertEqual(manager.groupingLevel, 1, "open until the turn ends")
                turnsDone += 1
            }
            spin(until: { turnsDone == 1 && manager.groupingLevel == 0 })
            MainLoop.idle(priority: .high) {
                counter.set(3)
                turnsDone += 1
            }
            spin(until: { turnsDone == 2 && manager.groupingLevel == 0 })
            manager.undo()
            XCTAssertEqual(counter.value, 2, "the second turn was a group of its own")
            manager.undo()
            XCTAssertEqual(counter.value, 0, "both changes of the first turn together")
        }
    }

    /// undo() with groupsByEvent closes the group the turn opened first.
    func testUndoInTheSameTurnClosesTheOpenGroup() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            let counter = Counter(manager)
            counter.set(4)
            XCTAssertTrue(manager.canUndo)
            manager.undo()
            XCTAssertEqual(counter.value, 0)
            XCTAssertEqual(manager.groupingLevel, 0)
            drainIdle()  // the turn's end finds the group closed already
            XCTAssertEqual(manager.groupingLevel, 0)
        }
    }

    /// levelsOfUndo: the oldest groups are dropped beyond it
    /// (https://developer.apple.com/documentation/foundation/undomanager/levelsofundo).
    func testLevelsOfUndoDropsTheOldest() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            manager.groupsByEvent = false
            manager.levelsOfUndo = 2
            let counter = Counter(manager)
            for value in 1...4 {
                manager.beginUndoGrouping()
                counter.set(value)
                manager.endUndoGrouping()
            }
            manager.undo()
            manager.undo()
            XCTAssertEqual(counter.value, 2)
            XCTAssertFalse(manager.canUndo)
        }
    }

    /// removeAllActions() and removeAllActions(withTarget:)
    /// (https://developer.apple.com/documentation/foundation/undomanager/removeallactions(withtarget:)).
    func testRemovingActions() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            manager.groupsByEvent = false
            let a = Counter(manager), b = Counter(manager)
            manager.beginUndoGrouping()
            a.set(1)
            b.set(1)
            manager.endUndoGrouping()
            manager.removeAllActions(withTarget: a)
            manager.undo()
            XCTAssertEqual(a.value, 1, "a's operation was removed")
            XCTAssertEqual(b.value, 0)
            manager.beginUndoGrouping()
            a.set(2)
            manager.endUndoGrouping()
            manager.removeAllActions()
            XCTAssertFalse(manager.canUndo)
            XCTAssertFalse(manager.canRedo)
        }
    }

    /// disableUndoRegistration(): registrations are ignored until enabled again.
    func testDisabledRegistrationIsIgnored() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            manager.groupsByEvent = false
            let counter = Counter(manager)
            manager.disableUndoRegistration()
            XCTAssertFalse(manager.isUndoRegistrationEnabled)
            counter.set(1)  // no group is needed: nothing is recorded
            manager.enableUndoRegistration()
            XCTAssertFalse(manager.canUndo)
        }
    }

    /// The NSUndoManagerWillUndoChange/DidUndoChange/…Redo… notifications, in order.
    func testNotifications() {
        MainActor.assumeIsolated {
            let manager = UndoManager()
            manager.groupsByEvent = false
            let counter = Counter(manager)
            var names: [String] = []
            let watched = [UndoManager.willUndoChangeNotification, UndoManager.didUndoChangeNotification,
                           UndoManager.willRedoChangeNotification, UndoManager.didRedoChangeNotification,
                           UndoManager.didOpenUndoGroupNotification, UndoManager.didCloseUndoGroupNotification]
            let tokens = watched.map { name in
                NotificationCenter.default.addObserver(forName: name, object: manager, queue: nil) { note in
                    let raw = note.name.rawValue
                    MainActor.assumeIsolated { names.append(raw.replacingOccurrences(of: "BatonUndoManager", with: "")) }
                }
            }
            defer { tokens.forEach(NotificationCenter.default.removeObserver) }
            manager.beginUndoGrouping()
            counter.set(1)
            manager.endUndoGrouping()
            manager.undo()
            manager.redo()
            XCTAssertEqual(names, ["DidOpenUndoGroup", "DidCloseUndoGroup", "WillUndoChange", "DidUndoChange",
                                   "WillRedoChange", "DidRedoChange"])
        }
    }
}
