import Baton

/// The example's actions: typed, found along the responder chain.
@MainActor protocol Copying { func copy(_ sender: Any?) }
@MainActor protocol Refreshing { func refresh(_ sender: Any?) }

extension Action where Handler == any Copying {
    static let copy = Action("copy") { $0.copy($1) }
}
extension Action where Handler == any Refreshing {
    static let refresh = Action("refresh") { $0.refresh($1) }
}

/// A focusable field: it can be first responder and copies its text. Editing keys (Tab,
/// Backspace) become AppKit's commands through `interpretKeyEvents(_:)`; every other key goes
/// on up the responder chain, to the app.
final class Field: View, Copying, StandardKeyBindingResponding.InsertTab, StandardKeyBindingResponding.DeleteBackward {
    var text: String
    init(_ name: String, text: String) {
        self.text = text
        super.init(identifier: name)
    }
    override var acceptsFirstResponder: Bool { true }
    func copy(_ sender: Any?) { say("  copy → \(responderDescription) copied \"\(text)\"") }

    override func keyDown(with event: Event) {
        if StandardKeyBindings.command(for: event) != nil { interpretKeyEvents([event]) } else { super.keyDown(with: event) }
    }

    /// Tab: the next field of the window becomes first responder, as a text field's Tab selects
    /// the next key view.
    func insertTab(_ sender: Any?) {
        guard let window else { return }
        let fields = window.contentView?.subviews.filter(\.acceptsFirstResponder) ?? []
        guard let index = fields.firstIndex(where: { $0 === self }) else { return }
        let next = fields[(index + 1) % fields.count]
        window.makeFirstResponder(next)
        say("  insertTab → \(responderDescription) passed first responder to \(next.responderDescription)")
    }

    func deleteBackward(_ sender: Any?) {
        if !text.isEmpty { text.removeLast() }
        say("  deleteBackward → \(responderDescription) now reads \"\(text)\"")
    }
}

/// The inbox screen's controller: it handles refresh for every field on its screen.
final class MailboxController: ViewController, Refreshing {
    override func loadView() {
        let root = View(identifier: "inbox")
        root.addSubview(Field("message list", text: "Re: lunch?"))
        root.addSubview(Field("search field", text: "from:ada"))
        view = root
    }
    func refresh(_ sender: Any?) { say("  refresh → \(responderDescription) fetched 3 new messages") }
}

final class ComposeController: ViewController {
    override func loadView() {
        let root = View(identifier: "compose")
        root.addSubview(Field("subject", text: "Weekly notes"))
        root.addSubview(Field("body", text: "Dear team, …"))
        view = root
    }
}
