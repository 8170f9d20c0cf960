@testable import Baton
import Foundation
import XCTest

/// Key equivalents as AppKit routes them ("Handling Key Events",
/// https://developer.apple.com/documentation/appkit/handling-key-events; NSApplication
/// `sendEvent(_:)`, NSWindow `sendEvent(_:)`, NSMenu `performKeyEquivalent(with:)`): a key-down
/// with Command is offered to the key window's views first (`performKeyEquivalent(with:)`), then
/// to the main menu, whose item sends its action along the chain; only when neither takes it is
/// it a `keyDown(with:)` of the first responder.
final class KeyEquivalentRoutingTests: BatonTestCase {
    /// A view that records key-downs and handles `copy`.
    private final class Editor: RecordingView, Copying {
        var copies: [Any?] = []
        func copy(_ sender: Any?) { copies.append(sender) }
    }

    func testAKeyEquivalentGoesToTheViewsThenTheMainMenuThenTheFirstResponder() {
        MainActor.assumeIsolated {
            let content = RecordingView(identifier: "content")
            let editor = Editor(identifier: "editor")
            editor.accepts = true
            content.addSubview(editor)
            let window = Window(title: "keys")
            window.contentView = content
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            XCTAssertTrue(window.makeFirstResponder(editor))

            let main = Menu(title: "Main")
            let editItem = MenuItem(title: "Edit", action: nil, keyEquivalent: "")
            let edit = Menu(title: "Edit")
            editItem.submenu = edit
            main.addItem(editItem)
            let copy = edit.addItem(withTitle: "Copy", action: .copy, keyEquivalent: "c")
            Application.shared.mainMenu = main

            // A view that takes the equivalent keeps it from the menu.
            content.equivalents = ["c"]
            Application.shared.sendEvent(keyEvent("c", .command, in: window))
            XCTAssertEqual(content.received, ["performKeyEquivalent c"])
            XCTAssertTrue(editor.copies.isEmpty)

            // No view takes it: the main menu's item sends copy along the chain, from the item.
            content.equivalents = []
            Application.shared.sendEvent(keyEvent("c", .command, in: window))
            XCTAssertEqual(editor.copies.count, 1)
            XCTAssertTrue(editor.copies.last as? MenuItem === copy, "the menu item is the sender")
            XCTAssertTrue(editor.received.isEmpty, "a key equivalent the menu took is no key-down")

            // Neither the views nor the menu: the first responder gets the key-down.
            Application.shared.sendEvent(keyEvent("k", .command, in: window))
            XCTAssertEqual(editor.received, ["keyDown"])
            XCTAssertEqual(editor.copies.count, 1)
        }
    }
}
