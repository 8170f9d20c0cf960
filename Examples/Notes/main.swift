// Notes: a document-based Baton app; its documents get user activities without any code.
//
//     baton-notes --save FILE NOTE [--line N]   open NOTE, go to line N, hand off to FILE
//     baton-notes --continue FILE               continue: the runtime opens the note and restores it
import Baton

final class NotesApp: ApplicationDelegate {
    let mode: Mode
    enum Mode { case save(URL, note: URL, line: Int), continueFrom(URL) }

    init(mode: Mode) { self.mode = mode }

    func applicationDidFinishLaunching(_ notification: Notification) {
        // The manifest's NSDocumentClass, Notes.NoteDocument, is the class of its notes.
        switch mode {
        case .save(let file, let note, let line):
            do {
                let document = try DocumentController.shared.openDocument(withContentsOf: note, display: true) as! NoteDocument
                say("opened \(note.lastPathComponent); its activity: \(document.userActivity?.activityType ?? "none")")
                document.currentLine = line - 1
                MainLoop.idle {
                    do {
                        guard let activity = Application.shared.currentUserActivity else { return fail("no current activity") }
                        try ActivityFile.write(activity, to: file)
                        say("handed off to \(file.lastPathComponent)")
                        Application.shared.terminate(nil)
                    } catch { fail("\(error)") }
                }
            } catch { fail("\(error)") }
        case .continueFrom(let file):
            _ = NotificationCenter.default.addObserver(forName: Window.didBecomeMainNotification, object: nil, queue: nil) { _ in
                MainActor.assumeIsolated {
                    _ = MainLoop.idle { Application.shared.terminate(nil) }
                }
            }
            Application.shared.continueUserActivity(fromFileAt: file)
        }
    }

    // No application(_:continue:restorationHandler:): the runtime opens the document.
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        say("willContinueUserActivityWithType \(userActivityType)")
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        fail("could not continue \(PrintableText.escaped(userActivityType)): \(PrintableText.escaped(error.localizedDescription))")
    }
}

var exitCode: Int32 = 0

@MainActor func fail(_ message: String) {
    say("error: \(message)")
    exitCode = 1
    Application.shared.terminate(nil)
}

/// A line of the transcript, escaped: a handoff file's or a note's text never reaches the
/// terminal raw.
func say(_ line: String) {
    // Line by line, so a usage text keeps its lines; what another device sent is escaped whole
    // where it is interpolated (`shown`), newlines included.
    let text = line.split(separator: "\n", omittingEmptySubsequences: false).map { PrintableText.escaped(String($0)) }.joined(separator: "\n")
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

let arguments = Array(CommandLine.arguments.dropFirst())
func value(after flag: String, _ offset: Int = 1) -> String? {
    arguments.firstIndex(of: flag).flatMap { $0 + offset < arguments.count ? arguments[$0 + offset] : nil }
}

let mode: NotesApp.Mode
if let file = value(after: "--save"), let note = value(after: "--save", 2) {
    let line = value(after: "--line") ?? "1"
    guard let number = Int(line), number > 0 else {
        say("error: --line takes a line number, not '\(line)'")
        exit(2)
    }
    mode = .save(URL(fileURLWithPath: file), note: URL(fileURLWithPath: note), line: number)
} else if let file = value(after: "--continue") {
    mode = .continueFrom(URL(fileURLWithPath: file))
} else {
    say("usage: baton-notes --save FILE NOTE [--line N] | --continue FILE")
    exit(2)
}

MainActor.assumeIsolated {
    do {
        Application.shared.manifest = try AppManifest(contentsOf: Bundle.module.url(forResource: "Info", withExtension: "plist", subdirectory: "Manifest")!)
    } catch {
        say("error: \(error)")
        exit(1)
    }
}
Application.main(delegate: NotesApp(mode: mode))
exit(MainActor.assumeIsolated { exitCode })
