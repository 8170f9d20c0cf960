@testable import Baton
import Foundation
import XCTest

/// A text-editing view as AppKit's custom views are written: `keyDown(with:)` hands the event to
/// `interpretKeyEvents(_:)`, and the view records the text and the commands it gets.
final class EditorView: View, StandardKeyBindingResponding.MoveLeft, StandardKeyBindingResponding.InsertNewline {
    var log: [String] = []
    override var acceptsFirstResponder: Bool { true }
    override func keyDown(with event: Event) { interpretKeyEvents([event]) }
    override func insertText(_ insertString: Any) { log.append("insert \(insertString)") }
    override func doCommand(by selector: AnyAction) {
        log.append(selector.name)
        super.doCommand(by: selector)
    }
    func moveLeft(_ sender: Any?) { log.append("performed moveLeft") }
    func insertNewline(_ sender: Any?) { log.append("performed insertNewline") }
}

/// A container that handles a command its subview does not.
final class DeletingContainer: View, StandardKeyBindingResponding.DeleteBackward {
    var deletes = 0
    func deleteBackward(_ sender: Any?) { deletes += 1 }
}

/// interpretKeyEvents(_:) (https://developer.apple.com/documentation/appkit/nsresponder/interpretkeyevents(_:)),
/// doCommand(by:) (https://developer.apple.com/documentation/appkit/nsresponder/docommand(by:)),
/// insertText(_:) (https://developer.apple.com/documentation/appkit/nsresponder/inserttext(_:)), and
/// the standard bindings of "Text System Defaults and Key Bindings" (Cocoa Event Handling Guide,
/// StandardKeyBinding.dict).
final class KeyBindingTests: BatonTestCase {
    func testTheStandardBindingsOfTheCommonEditingKeys() {
        MainActor.assumeIsolated {
            let cases: [(Event, String)] = [
                (keyEvent(.leftArrow), "moveLeft"), (keyEvent(.rightArrow), "moveRight"),
                (keyEvent(.upArrow), "moveUp"), (keyEvent(.downArrow), "moveDown"),
                (keyEvent(.leftArrow, .shift), "moveLeftAndModifySelection"),
                (keyEvent(.rightArrow, .shift), "moveRightAndModifySelection"),
                (keyEvent(.upArrow, .shift), "moveUpAndModifySelection"),
                (keyEvent(.downArrow, .shift), "moveDownAndModifySelection"),
                (keyEvent(.leftArrow, .option), "moveWordLeft"),
                (keyEvent(.rightArrow, [.option, .shift]), "moveWordRightAndModifySelection"),
                (keyEvent(.leftArrow, .command), "moveToLeftEndOfLine"),
                (keyEvent(.upArrow, .command), "moveToBeginningOfDocument"),
                (keyEvent(.delete), "deleteBackward"), (keyEvent(.deleteForward), "deleteForward"),
                (keyEvent(.delete, .option), "deleteWordBackward"),
                (keyEvent(.carriageReturn), "insertNewline"), (keyEvent(.enter), "insertNewline"),
                (keyEvent(.tab), "insertTab"), (keyEvent(.tab, .shift), "insertBacktab"),
                (keyEvent(.backTab, .shift), "insertBacktab"), (keyEvent("\u{1B}"), "cancelOperation"),
                (keyEvent(.home), "scrollToBeginningOfDocument"), (keyEvent(.end), "scrollToEndOfDocument"),
                (keyEvent(.pageUp), "scrollPageUp"), (keyEvent(.pageDown), "scrollPageDown"),
                (keyEvent(.home, .shift), "moveToBeginningOfDocumentAndModifySelection"),
                (keyEvent(.pageDown, .shift), "pageDownAndModifySelection"),
            ]
            for (event, command) in cases {
                XCTAssertEqual(StandardKeyBindings.command(for: event)?.name, command, "\(event)")
            }
            XCTAssertNil(StandardKeyBindings.command(for: keyEvent("a")))
            XCTAssertNil(StandardKeyBindings.command(for: keyEvent(.leftArrow, .control)), "not bound")
        }
    }

    func testKeysBecomeCommandsAndTextOnTheResponder() {
        MainActor.assumeIsolated {
            let editor = EditorView()
            for event in [keyEvent(.leftArrow), keyEvent("h"), keyEvent("é"), keyEvent(.carriageReturn),
                          keyEvent("a", .command), keyEvent("\u{1}", .control, ignoringModifiers: "a"),
                          keyEvent(.f1)] {
                editor.keyDown(with: event)
            }
            XCTAssertEqual(editor.log, ["moveLeft", "performed moveLeft", "insert h", "insert é",
                                        "insertNewline", "performed insertNewline"],
                           "Command and Control keys and function keys type nothing")
        }
    }

    func testACommandTheResponderDoesNotHandleGoesUpTheChainThenToNoResponder() {
        MainActor.assumeIsolated {
            let delegate = EventEndDelegate()
            Application.shared.delegate = delegate
            let window = Window(title: "w")
            let container = DeletingContainer(), editor = EditorView()
            container.addSubview(editor)
            window.contentView = container
            editor.keyDown(with: keyEvent(.delete))
            XCTAssertEqual(container.deletes, 1, "deleteBackward found up the chain, as tryToPerform(_:with:) finds it")
            editor.keyDown(with: keyEvent(.pageUp))
            XCTAssertEqual(delegate.unhandled, ["scrollPageUp"], "nobody handles it: the end of the chain is told")
            XCTAssertEqual(editor.log, ["deleteBackward", "scrollPageUp"])
        }
    }

    func testAnOverrideComparesCommandsAsSelectors() {
        MainActor.assumeIsolated {
            final class FieldEditor: View {
                var newlines = 0
                override func doCommand(by selector: AnyAction) {
                    if selector == .insertNewline { newlines += 1 } else { super.doCommand(by: selector) }
                }
            }
            let field = FieldEditor()
            field.interpretKeyEvents([keyEvent(.carriageReturn), keyEvent(.tab)])
            XCTAssertEqual(field.newlines, 1)
        }
    }

    func testUnhandledTextGoesUpTheChain() {
        MainActor.assumeIsolated {
            final class TextSink: View {
                var text = ""
                override func insertText(_ insertString: Any) { text += insertString as? String ?? "" }
            }
            let sink = TextSink(), plain = View()
            sink.addSubview(plain)
            plain.interpretKeyEvents([keyEvent("o"), keyEvent("k")])
            XCTAssertEqual(sink.text, "ok")
        }
    }

    /// NSEvent.specialKey (https://developer.apple.com/documentation/appkit/nsevent/specialkey-swift.property).
    func testSpecialKeyOfAnEvent() {
        MainActor.assumeIsolated {
            XCTAssertEqual(keyEvent(.leftArrow).specialKey, .leftArrow)
            XCTAssertEqual(keyEvent(.delete).specialKey, .delete)
            XCTAssertNil(keyEvent("a").specialKey)
        }
    }
}
