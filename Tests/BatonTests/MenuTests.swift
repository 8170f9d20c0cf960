@testable import Baton
import Foundation
import XCTest

/// A view that handles `copy`, records who sent it, and validates it by `canCopy`.
final class MenuCopyView: View, Copying, UserInterfaceValidations {
    var canCopy = true
    var senders: [Any?] = []
    var validatedTags: [Int] = []
    override var acceptsFirstResponder: Bool { true }
    func copy(_ sender: Any?) { senders.append(sender) }
    func validateUserInterfaceItem(_ item: any ValidatedUserInterfaceItem) -> Bool {
        validatedTags.append(item.tag)
        return item.action == .copy ? canCopy : true
    }
}

/// What notifications a test saw (the observer's closure is `@Sendable`; all runs on the
/// main thread).
final class PostedNames: @unchecked Sendable {
    var names: [Notification.Name] = []
}

/// A key-down event typing `characters` with `flags`.
@MainActor
func keyDown(_ characters: String, _ flags: Event.ModifierFlags, ignoringModifiers: String? = nil) -> Event {
    Event.keyEvent(with: .keyDown, location: .zero, modifierFlags: flags, timestamp: 0, windowNumber: 0, context: nil,
                   characters: characters, charactersIgnoringModifiers: ignoringModifiers ?? characters,
                   isARepeat: false, keyCode: 0)!
}

/// A window showing `view` as first responder, key and main, in an active app.
@MainActor private func showKey(_ view: View) -> Window {
    let window = Window(title: "menus")
    window.contentView = view
    window.makeKeyAndOrderFront(nil)
    Application.shared.activate()
    XCTAssertTrue(window.makeFirstResponder(view))
    return window
}

/// NSMenu and NSMenuItem (https://developer.apple.com/documentation/appkit/nsmenu,
/// https://developer.apple.com/documentation/appkit/nsmenuitem): items, automatic enabling
/// ("Enabling Menu Items", https://developer.apple.com/documentation/appkit/enabling-menu-items)
/// and key equivalents (NSMenu `performKeyEquivalent(with:)`, NSMenuItem `keyEquivalent`).
final class MenuTests: BatonTestCase {
    /// NSMenu addItem(_:), insertItem(_:at:), removeItem(_:), item(withTitle:),
    /// item(withTag:), indexOfItem; NSMenuItem's defaults (keyEquivalentModifierMask is
    /// `.command`, state off, enabled; NSMenu autoenablesItems true); the menu's
    /// notifications; an item in another menu is refused (AppKit raises).
    func testItemsAreAddedInsertedFoundAndRemoved() {
        MainActor.assumeIsolated {
            let menu = Menu(title: "Edit")
            XCTAssertTrue(menu.autoenablesItems)
            let posted = PostedNames()
            let names = [Menu.didAddItemNotification, Menu.didRemoveItemNotification, Menu.didChangeItemNotification]
            let observers = names.map { name in
                NotificationCenter.default.addObserver(forName: name, object: menu, queue: nil) { note in
                    posted.names.append(note.name)
                }
            }
            defer { observers.forEach(NotificationCenter.default.removeObserver) }

            let copy = MenuItem(title: "Copy", action: .copy, keyEquivalent: "c")
            XCTAssertEqual(copy.keyEquivalentModifierMask, .command)
            XCTAssertEqual(copy.state, .off)
            XCTAssertTrue(copy.isEnabled)
            XCTAssertTrue(copy.action == .copy)
            menu.addItem(copy)
            let paste = menu.addItem(withTitle: "Paste", action: .copy, keyEquivalent: "v")
            paste.tag = 7
            let separator = MenuItem.separator()
            XCTAssertTrue(separator.isSeparatorItem)
            menu.insertItem(separator, at: 1)
            XCTAssertEqual(menu.items.map(\.title), ["Copy", "", "Paste"])
            XCTAssertEqual(menu.numberOfItems, 3)
            XCTAssertTrue(menu.item(withTitle: "Paste") === paste)
            XCTAssertTrue(menu.item(withTag: 7) === paste)
            XCTAssertEqual(menu.indexOfItem(paste), 2)
            XCTAssertEqual(menu.indexOfItem(withTitle: "Copy"), 0)
            XCTAssertNil(menu.indexOfItem(MenuItem()))
            XCTAssertTrue(copy.menu === menu)

            copy.state = .on
            XCTAssertEqual(posted.names, [Menu.didAddItemNotification, Menu.didAddItemNotification,
                                    Menu.didAddItemNotification, Menu.didChangeItemNotification])

            let other = Menu(title: "Other")
            other.addItem(copy)
            assertRefused("menuItemInAnotherMenu", mentioning: "'Copy'")
            XCTAssertEqual(other.numberOfItems, 0)

            menu.removeItem(copy)
            XCTAssertNil(copy.menu)
            XCTAssertEqual(menu.items.map(\.title), ["", "Paste"])
            XCTAssertEqual(posted.names.last, Menu.didRemoveItemNotification)

            let main = Menu(title: "Main")
            let edit = MenuItem(title: "Edit", action: nil, keyEquivalent: "")
            edit.submenu = menu
            main.addItem(edit)
            XCTAssertTrue(menu.supermenu === main)
        }
    }

    /// "Enabling Menu Items": with autoenablesItems, update() enables an item when the
    /// responder chain has a target for its action and that target's validator says yes —
    /// the same rule as `Application.isEnabled(_:to:)`, given the item itself (its tag).
    /// Without autoenablesItems the app's isEnabled stands.
    func testUpdateEnablesItemsByTheChainsValidation() {
        MainActor.assumeIsolated {
            let view = MenuCopyView(identifier: "editor")
            _ = showKey(view)
            let menu = Menu(title: "Edit")
            let copy = menu.addItem(withTitle: "Copy", action: .copy, keyEquivalent: "c")
            copy.tag = 42
            menu.update()
            XCTAssertTrue(copy.isEnabled)
            XCTAssertEqual(view.validatedTags.last, 42, "the validator is given the menu item")

            view.canCopy = false
            menu.update()
            XCTAssertFalse(copy.isEnabled, "the target's validator said no")
            XCTAssertEqual(copy.isEnabled, Application.shared.isEnabled(copy), "one rule")

            view.canCopy = true
            let nobody = menu.addItem(withTitle: "Greet", action: .copy, keyEquivalent: "")
            let handlesNothing = View(identifier: "handles nothing")
            nobody.target = handlesNothing  // weak, as in AppKit
            menu.update()
            XCTAssertFalse(nobody.isEnabled, "a target that does not handle the action disables it")
            let elsewhere = MenuCopyView(identifier: "elsewhere")
            nobody.target = elsewhere
            elsewhere.canCopy = false
            menu.update()
            XCTAssertFalse(nobody.isEnabled, "an explicit target's validator decides")

            menu.autoenablesItems = false
            copy.isEnabled = false
            menu.update()
            XCTAssertFalse(copy.isEnabled, "without automatic enabling, the app's setting stands")
        }
    }

    /// NSMenuDelegate menuNeedsUpdate(_:): asked before the menu is validated, so it can
    /// change the items first (https://developer.apple.com/documentation/appkit/nsmenudelegate/menuneedsupdate(_:)).
    func testTheDelegateMayChangeTheItemsBeforeTheyAreValidated() {
        MainActor.assumeIsolated {
            final class Filler: MenuDelegate {
                var calls = 0
                func menuNeedsUpdate(_ menu: Menu) {
                    calls += 1
                    if menu.item(withTitle: "Copy") == nil { menu.addItem(withTitle: "Copy", action: .copy, keyEquivalent: "c") }
                }
            }
            let view = MenuCopyView(identifier: "editor")
            _ = showKey(view)
            let menu = Menu(title: "Edit")
            let filler = Filler()
            menu.delegate = filler
            XCTAssertTrue(menu.performKeyEquivalent(with: keyDown("c", .command)), "the item the delegate added answers")
            XCTAssertEqual(filler.calls, 1)
            XCTAssertEqual(view.senders.count, 1)
            view.canCopy = false
            menu.update()
            XCTAssertEqual(filler.calls, 2)
            XCTAssertEqual(menu.item(withTitle: "Copy")?.isEnabled, false)
        }
    }

    /// NSMenu performKeyEquivalent(with:) and NSMenuItem keyEquivalent /
    /// keyEquivalentModifierMask: Command-C chooses the enabled "c" item in a submenu, whose
    /// action goes along the chain with the item as sender; other modifiers, a disabled item
    /// or a key-up do not; an uppercase key equivalent means Shift.
    func testAKeyEquivalentSendsTheItemsActionAlongTheChain() {
        MainActor.assumeIsolated {
            let view = MenuCopyView(identifier: "editor")
            _ = showKey(view)
            let main = Menu(title: "Main")
            let edit = Menu(title: "Edit")
            let editItem = MenuItem(title: "Edit", action: nil, keyEquivalent: "")
            editItem.submenu = edit
            main.addItem(editItem)
            let copy = edit.addItem(withTitle: "Copy", action: .copy, keyEquivalent: "c")
            Application.shared.mainMenu = main

            XCTAssertTrue(main.performKeyEquivalent(with: keyDown("c", .command)))
            XCTAssertEqual(view.senders.count, 1)
            XCTAssertTrue(view.senders.last as? MenuItem === copy, "the item is the sender")

            XCTAssertFalse(main.performKeyEquivalent(with: keyDown("c", [])), "no Command")
            XCTAssertFalse(main.performKeyEquivalent(with: keyDown("c", [.command, .option])), "Option too")
            XCTAssertFalse(main.performKeyEquivalent(with: keyDown("C", [.command, .shift])), "Shift too")
            XCTAssertTrue(main.performKeyEquivalent(with: keyDown("c", [.command, .capsLock])),
                          "Caps Lock is not part of a key equivalent")
            let up = Event.keyEvent(with: .keyUp, location: .zero, modifierFlags: .command, timestamp: 0, windowNumber: 0,
                                    context: nil, characters: "c", charactersIgnoringModifiers: "c", isARepeat: false, keyCode: 0)!
            XCTAssertFalse(main.performKeyEquivalent(with: up))
            XCTAssertEqual(view.senders.count, 2)

            view.canCopy = false
            XCTAssertFalse(main.performKeyEquivalent(with: keyDown("c", .command)), "a disabled item is not chosen")
            XCTAssertEqual(view.senders.count, 2)
            view.canCopy = true

            copy.keyEquivalent = "C"
            XCTAssertFalse(main.performKeyEquivalent(with: keyDown("c", .command)))
            XCTAssertTrue(main.performKeyEquivalent(with: keyDown("C", [.command, .shift])))
            copy.keyEquivalent = "c"
            copy.keyEquivalentModifierMask = [.command, .shift]
            XCTAssertTrue(main.performKeyEquivalent(with: keyDown("C", [.command, .shift])))
            XCTAssertEqual(view.senders.count, 4)

            copy.keyEquivalent = "?"
            copy.keyEquivalentModifierMask = .command
            XCTAssertTrue(main.performKeyEquivalent(with: keyDown("?", [.command, .shift])),
                          "for a key that is not a letter, the Shift that typed it does not count")

            let target = MenuCopyView(identifier: "target")
            copy.target = target
            XCTAssertTrue(main.performKeyEquivalent(with: keyDown("?", .command)))
            XCTAssertEqual(target.senders.count, 1, "an item with a target sends to it, not along the chain")
            XCTAssertEqual(view.senders.count, 5)
        }
    }

    /// NSApplication mainMenu: setting it to another menu tells the toolkits.
    func testSettingTheMainMenuIsPosted() {
        MainActor.assumeIsolated {
            let changes = PostedNames()
            let observer = NotificationCenter.default.addObserver(
                forName: Application.didChangeMainMenuNotification, object: nil, queue: nil
            ) { note in changes.names.append(note.name) }
            defer { NotificationCenter.default.removeObserver(observer) }
            let menu = Menu(title: "Main")
            Application.shared.mainMenu = menu
            Application.shared.mainMenu = menu
            XCTAssertTrue(Application.shared.mainMenu === menu)
            XCTAssertEqual(changes.names.count, 1)
        }
    }
}
