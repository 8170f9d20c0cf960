#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// BatonGtk on a real GTK 4, under a virtual display (Xvfb) of each test's own: each scenario
/// runs in a `GtkProbe` process (GTK initialises once per process; the test runner opens no
/// display), which prints what Baton and GTK say after each step.
///
/// The rules checked are AppKit's: a click into a view makes it first responder
/// (`NSWindow.makeFirstResponder(_:)`, "About Key and Main Windows", NSResponder "Responder
/// Chain"); the window the person activates becomes key and, for a document window, main; a
/// panel (`NSPanel`) becomes key but never main; the current activity is the main window's
/// first responder's (about-handoff, "Managing a User Activity with Responders"); a key
/// equivalent reaches the first responder through `sendAction(_:to:from:)` with a nil target;
/// the close button asks `windowShouldClose(_:)`; an activity no responder holds any more is
/// invalidated.
///
/// There is no window manager on the virtual display: GTK gives a window the focus itself
/// (`XSetInputFocus`) when it is presented once on screen, and the probe stands in for the
/// person's click on another window with `gtk_window_present`, which is what a window manager
/// does then. Clicks into text views and key presses are real X events (XTest).
final class GtkWindowTests: XCTestCase {

    private func run(_ scenario: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        try runGtkProbe(scenario, file: file, line: line)
    }

    private func states(_ lines: [String]) -> [String] {
        lines.filter { $0.hasPrefix("STATE ") }.map { String($0.dropFirst("STATE ".count)) }
    }

    func testClickingIntoATextViewMakesItFirstResponderAndItsActivityCurrent() throws {
        let lines = try run("focus")
        XCTAssertEqual(states(lines), [
            // GTK focuses the first text view when the window becomes active: Baton follows.
            "shown: key=A main=A first=one gtkActive=A current=note.one",
            "clicked one: key=A main=A first=one gtkActive=A current=note.one",
            "clicked two: key=A main=A first=two gtkActive=A current=note.two",
            // A view that refuses (becomeFirstResponder false): the window is first responder,
            // no activity is current, and GTK's focus leaves the text view so both agree.
            "clicked refusing: key=A main=A first=window gtkActive=A current=-",
            "made one first in code: key=A main=A first=one gtkActive=A current=note.one",
        ])
        XCTAssertEqual(lines.filter { $0.hasPrefix("CHECK gtkFocus") },
                       ["CHECK gtkFocus=two", "CHECK gtkFocus=none", "CHECK gtkFocus=one"])
    }

    func testActivatingAnotherGtkWindowSwitchesTheMainWindowAndTheCurrentActivity() throws {
        let lines = try run("switch")
        XCTAssertEqual(states(lines), [
            "A shown: key=A main=A first=a gtkActive=A current=note.a",
            "GTK activated B: key=B main=B first=b gtkActive=B current=note.b",
            "GTK activated A: key=A main=A first=a gtkActive=A current=note.a",
        ])
    }

    func testADialogTakesKeyButNotMain() throws {
        let lines = try run("dialog")
        XCTAssertEqual(states(lines), [
            "document shown: key=A main=A first=a gtkActive=A current=note.a",
            "dialog shown: key=Find main=A first=find gtkActive=Find current=note.a",
            "clicked into dialog: key=Find main=A first=find gtkActive=Find current=note.a",
            "dialog closed: key=A main=A first=a gtkActive=A current=note.a",
        ])
    }

    func testARealShortcutReachesTheFirstRespondersAction() throws {
        let lines = try run("shortcut")
        XCTAssertEqual(lines.filter { $0.hasPrefix("ACTION") },
                       ["ACTION save reached two from GtkActions", "ACTION save reached one from GtkActions"])
        XCTAssertTrue(lines.contains("CHECK saves one=1 two=1"))
    }

    /// AppKit's automatic enabling ("Enabling Menu Items"): an item is enabled when
    /// `target(forAction:to:from:)` finds a responder for its action and that responder's
    /// `validateUserInterfaceItem(_:)` (`NSUserInterfaceValidations`) does not say no; a
    /// disabled item sends nothing.
    func testAGtkActionIsEnabledOnlyWhileTheFocusedChainHandlesItAndItsValidatorAgrees() throws {
        let lines = try run("validation")
        XCTAssertEqual(lines.filter { $0.hasPrefix("CHECK") && !$0.hasPrefix("CHECK boxes") && !$0.hasPrefix("CHECK gtk toplevels") }, [
            "CHECK plain first: save enabled=false",
            "CHECK disabled activation: saves=0",
            "CHECK one first: save enabled=true",
            "CHECK stale activation: saves=1 enabled=false",
            "CHECK validator said no: save enabled=false",
            "CHECK disabled shortcut: saves=1 marks=1",
        ])
        XCTAssertEqual(lines.filter { $0.hasPrefix("ACTION") }, ["ACTION save reached one from GtkActions"])
    }

    /// `Application.mainMenu` as the GtkApplication's menu bar: the GMenu model holds the
    /// menus and items (a separator starts a section; an item that is on has a checked
    /// state, NSMenuItem `state`), each item's GAction is enabled by
    /// AppKit's automatic enabling ("Enabling Menu Items") — the chain's target and its
    /// validator —, key equivalents are accelerators (`.command` is `<Primary>`, an uppercase
    /// key equivalent adds Shift: NSMenuItem `keyEquivalent`), a real Control+S chooses Save
    /// and its action reaches the first responder with the menu item as sender, and a changed
    /// title rebuilds the bar.
    func testTheMainMenuIsTheMenuBarValidatedByTheChainWithAcceleratorsThatFire() throws {
        let lines = try run("menubar")
        XCTAssertEqual(lines.filter { $0.hasPrefix("CHECK") && !$0.hasPrefix("CHECK boxes") && !$0.hasPrefix("CHECK gtk toplevels") }, [
            "CHECK model File[Save(app.menu-0-0) ; Mark(app.menu-0-2)]",
            "CHECK mark state=on",
            "CHECK accelerators menu-0-0=<Control>s menu-0-2=<Shift><Control>m",
            "CHECK plain first: save enabled=false",
            "CHECK one first: save enabled=true",
            "CHECK validator said no: save enabled=false",
            "CHECK rebuilt File[Save All(app.menu-0-0) ; Mark(app.menu-0-2)]",
        ])
        XCTAssertEqual(lines.filter { $0.hasPrefix("ACTION") }, ["ACTION save reached one from MenuItem"])
    }

    /// `NSApplication.hide(_:)` hides all the app's windows (none is visible, `orderedWindows`
    /// is empty); `unhide(_:)` shows them again and makes the app active, key and main where
    /// they were.
    func testHidingTheAppHidesItsGtkWindowsAndUnhidingBringsThemBackWithKeyAndMain() throws {
        let lines = try run("hide")
        XCTAssertEqual(lines.filter { $0.hasPrefix("CHECK") && !$0.hasPrefix("CHECK boxes") && !$0.hasPrefix("CHECK gtk toplevels") }, [
            "CHECK hidden: gtkVisible A=false B=false batonVisible A=false B=false ordered=[]",
            "CHECK hidden, GTK settled: gtkVisible A=false B=false batonVisible A=false B=false ordered=[] hidden=true",
            "CHECK unhidden: gtkVisible A=true B=true batonVisible A=true B=true ordered=[\"A\", \"B\"]",
        ])
        XCTAssertEqual(states(lines), [
            "both shown: key=A main=A first=a gtkActive=A current=note.a",
            "unhidden: key=A main=A first=a gtkActive=A current=note.a",
        ])
    }

    func testClosingAGtkWindowClosesTheBatonWindowAndInvalidatesTheActivityOnlyItHeld() throws {
        let lines = try run("close")
        XCTAssertTrue(lines.contains("CHECK refused: closed=false gtkVisible=true"), "windowShouldClose(_:) said no")
        XCTAssertTrue(lines.contains("CHECK closed: closed=true gtkWindow=nil windows=[\"B\"]"))
        XCTAssertEqual(states(lines), [
            "A front: key=A main=A first=a gtkActive=A current=note.a",
            "A closed: key=B main=B first=b gtkActive=B current=note.b",
        ])
        XCTAssertTrue(lines.contains("CHECK activity A valid=false"))
    }

    func testShowingHidingAndTheTitleFollowEitherSide() throws {
        let lines = try run("visibility")
        XCTAssertEqual(lines.filter { $0.hasPrefix("CHECK") && !$0.hasPrefix("CHECK boxes") && !$0.hasPrefix("CHECK gtk toplevels") }, [
            "CHECK GTK hid A: batonVisible=false",
            "CHECK Baton showed A: gtkVisible=true",
            "CHECK Baton hid A: gtkVisible=false",
            "CHECK GTK showed A: batonVisible=true",
            "CHECK title from GTK: A renamed in GTK",
            "CHECK title from Baton: A renamed in Baton",
        ])
        // GTK's is-active of a window hidden without a window manager stays stale (no focus-out
        // reaches it), so only Baton's side is compared here; the waits above saw GTK activate
        // the window Baton made key.
        let batonSide = states(lines).map { $0.replacingOccurrences(of: #" gtkActive=[^ ]*"#, with: "", options: .regularExpression) }
        XCTAssertEqual(batonSide, [
            "both shown: key=A main=A first=a current=note.a",
            // A hidden: the next window takes key and main (Application+WindowFocus), and GTK
            // is asked to give it the focus, since Baton made it key.
            "GTK hid A: key=B main=B first=b current=note.b",
            "Baton showed A: key=A main=A first=a current=note.a",
        ])
    }
}
#endif
