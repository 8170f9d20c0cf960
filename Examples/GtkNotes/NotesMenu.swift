import BatonGtk

/// The commands only the menu bar has: undo and redo (the note editor handles them with its
/// window's undo manager) and showing the list of notes (the app delegate does).
@MainActor protocol Undoing: AnyObject {
    func undo(_ sender: Any?)
    func redo(_ sender: Any?)
}
@MainActor protocol NoteListShowing: AnyObject { func showNoteList(_ sender: Any?) }

extension Action where Handler == any Undoing {
    static let undo = Action("undo") { $0.undo($1) }
    static let redo = Action("redo") { $0.redo($1) }
}
extension Action where Handler == any NoteListShowing {
    static let showNoteList = Action("showNoteList") { $0.showNoteList($1) }
}

/// GtkNotes' main menu, as an AppKit app builds it: File, Edit, Window, each item's action sent
/// along the responder chain (no targets), enabled by the chain's validation, its key
/// equivalent an accelerator (Command is Control on Linux).
enum NotesMenu {
    @MainActor static func make() -> Menu {
        let main = Menu(title: "GtkNotes")
        func submenu(_ title: String, _ items: [MenuItem]) {
            let menu = Menu(title: title)
            for item in items { menu.addItem(item) }
            let item = MenuItem(title: title, action: nil, keyEquivalent: "")
            item.submenu = menu
            main.addItem(item)
        }
        submenu("File", [
            MenuItem(title: "New Note", action: .newNote, keyEquivalent: "n"),
            .separator(),
            MenuItem(title: "Close Window", action: .performClose, keyEquivalent: "w"),
            MenuItem(title: "Quit", action: .terminate, keyEquivalent: "q"),
        ])
        submenu("Edit", [
            MenuItem(title: "Undo", action: .undo, keyEquivalent: "z"),
            MenuItem(title: "Redo", action: .redo, keyEquivalent: "Z"),  // uppercase: Shift too
        ])
        submenu("Window", [
            MenuItem(title: "Notes", action: .showNoteList, keyEquivalent: ""),
        ])
        return main
    }
}
