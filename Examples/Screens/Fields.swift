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

/// A focusable field: it can be first responder and copies its text.
final class Field: View, Copying {
    var text: String
    init(_ name: String, text: String) {
        self.text = text
        super.init(identifier: name)
    }
    override var acceptsFirstResponder: Bool { true }
    func copy(_ sender: Any?) { say("  copy → \(responderDescription) copied \"\(text)\"") }
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
