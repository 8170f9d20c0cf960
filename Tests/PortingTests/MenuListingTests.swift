import Baton
import BatonTestSupport
import Foundation
import XCTest

// An AppKit app's menu code, with the types renamed only (NSMenu → Menu, NSMenuItem →
// MenuItem, NSApp → Application.shared, NSControl.StateValue → ControlStateValue,
// NSUserInterfaceValidations → UserInterfaceValidations) and `#selector(…)` made a typed
// action, as the porting guide says. Each signature is AppKit's (NSMenu, NSMenuItem,
// NSApplication.mainMenu, NSUserInterfaceValidations), driven on the real application.

@MainActor private protocol Toggling: AnyObject { func toggleRuler(_ sender: Any?) }
extension Action where Handler == any Toggling {
    fileprivate static let toggleRuler = Action("toggleRuler") { $0.toggleRuler($1) }
}

/// A view that toggles a ruler and shows its state on the menu item, as AppKit's
/// `validateUserInterfaceItem(_:)` examples do.
private final class RulerView: View, Toggling, UserInterfaceValidations {
    var showsRuler = false
    override var acceptsFirstResponder: Bool { true }
    func toggleRuler(_ sender: Any?) { showsRuler.toggle() }
    func validateUserInterfaceItem(_ item: any ValidatedUserInterfaceItem) -> Bool {
        if item.action == .toggleRuler, let menuItem = item as? MenuItem {
            menuItem.state = showsRuler ? .on : .off
            return true
        }
        return false
    }
}

/// "Enabling Menu Items" and NSMenu's building methods, as an AppKit app writes them.
final class MenuListingTests: PortingTestCase {
    func testAnAppKitMainMenuPortsByRenaming() {
        MainActor.assumeIsolated {
            let view = RulerView(identifier: "text")
            let window = Window(title: "Document")
            window.contentView = view
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            _ = window.makeFirstResponder(view)

            // AppKit: let mainMenu = NSMenu(title: "MainMenu") …
            let mainMenu = Menu(title: "MainMenu")
            let formatMenuItem = MenuItem(title: "Format", action: nil, keyEquivalent: "")
            let formatMenu = Menu(title: "Format")
            let ruler = formatMenu.addItem(withTitle: "Show Ruler", action: .toggleRuler, keyEquivalent: "r")
            ruler.keyEquivalentModifierMask = [.command, .control]
            formatMenu.addItem(MenuItem.separator())
            formatMenuItem.submenu = formatMenu
            mainMenu.addItem(formatMenuItem)
            Application.shared.mainMenu = mainMenu

            formatMenu.update()
            XCTAssertTrue(ruler.isEnabled)
            XCTAssertEqual(ruler.state, ControlStateValue.off)
            let press = Event.keyEvent(with: .keyDown, location: .zero, modifierFlags: [.command, .control], timestamp: 0,
                                       windowNumber: window.windowNumber, context: nil, characters: "\u{12}",
                                       charactersIgnoringModifiers: "r", isARepeat: false, keyCode: 15)!
            XCTAssertTrue(Application.shared.mainMenu?.performKeyEquivalent(with: press) == true)
            XCTAssertTrue(view.showsRuler)
            formatMenu.update()
            XCTAssertEqual(ruler.state, ControlStateValue.on, "the validator set the check mark")
            XCTAssertEqual(mainMenu.item(withTitle: "Format")?.submenu?.numberOfItems, 2)
        }
    }
}
