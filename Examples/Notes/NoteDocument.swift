import Baton

/// A note: lines of text, and the line the user is on. Its activity comes from the manifest's
/// document type; the runtime puts the file URL in it, the note adds the line.
final class NoteDocument: Document {
    private(set) var lines: [String] = []
    var currentLine = 0 {
        didSet { userActivity?.needsSave = true }
    }

    override func read(from url: URL, ofType typeName: String) throws {
        lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    override func makeWindowControllers() {
        let window = Window(title: fileURL?.lastPathComponent ?? "Untitled",
                            contentViewController: NoteEditorController(title: "editor"))
        addWindowController(WindowController(window: window))
    }

    override func updateUserActivityState(_ activity: UserActivity) {
        super.updateUserActivityState(activity)  // the file URL
        activity.addUserInfoEntries(from: ["line": currentLine])
        say("updateUserActivityState: \(fileURL?.lastPathComponent ?? "?") at line \(currentLine + 1)")
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        currentLine = activity.userInfo?["line"] as? Int ?? 0
        let text = lines.indices.contains(currentLine) ? lines[currentLine] : ""
        say("restoreUserActivityState: opened \(fileURL?.lastPathComponent ?? "?") at line \(currentLine + 1): \"\(text)\"")
    }
}

final class NoteEditorController: ViewController {
    override func loadView() { view = EditorView(identifier: "text") }
}

final class EditorView: View {
    override var acceptsFirstResponder: Bool { true }
}
