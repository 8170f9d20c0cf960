import BatonGtk
import CGLib
import ExampleSupport
import Foundation

/// What the command line asked for besides the device options.
struct NotesOptions {
    /// Where the notes are kept.
    var folder: URL
    /// Text to type into a new note at launch, and where to leave the cursor.
    var typing: String?
    var cursor: Int?
    /// The label to pick for that note.
    var label: NoteLabel?
    /// Text to type into each note continued here, once restored, at its cursor (a test hook:
    /// an edit made on this device before the note continues back).
    var typingWhenContinued: String?
    /// Where to save a picture of the first note window that is continued (or, with `typing`, opened).
    var screenshot: URL?
    /// Terminate once that picture is saved.
    var quitAfterScreenshot = false
    /// Where to save a picture of the first note window whose note continued on another
    /// device, once it shows its banner.
    var bannerScreenshot: URL?
}

/// The app: a window listing the notes, a window per open note, notes continued from the
/// user's other devices, and a device of the group through the agent (`--agent`).
final class GtkNotesApp: ApplicationDelegate, NoteMaking, NoteListShowing {
    private(set) var options: NotesOptions
    let device: ExampleDevice?
    private var store: NoteStore!
    private var list: NoteListController!
    private var listWindow: NotesWindow!
    /// The open note windows, by file path.
    private var editors: [String: (controller: NoteEditorController, window: NotesWindow)] = [:]
    private var screenshotTaken = false
    private var signalSource: UInt32 = 0

    init(options: NotesOptions, device: ExampleDevice?) {
        self.options = options
        self.device = device
    }

    func applicationDidFinishLaunching(_ notification: Notification) {
        Application.shared.mainMenu = NotesMenu.make()
        do { store = try NoteStore(folder: options.folder) } catch { return fail("cannot use \(options.folder.path): \(error)") }
        if options.screenshot != nil || options.bannerScreenshot != nil { Self.stopCursorBlinking() }
        list = NoteListController(store: store)
        list.onOpen = { [unowned self] note in openEditor(for: note) }
        listWindow = NotesWindow(title: "Notes", controller: list, width: 320, height: 420)
        listWindow.present()
        // A person's session ends with SIGTERM: terminate as Quit would, saving the notes.
        signalSource = g_unix_signal_add(SIGTERM, { _ in
            MainActor.assumeIsolated { Application.shared.terminate(nil) }
            return 1
        }, nil)
        // Started by the session bus (D-Bus activation, its service file's Exec line) or directly.
        let how = CommandLine.arguments.contains("--gapplication-service") ? "D-Bus activated" : "primary instance"
        say("GtkNotes launched: \(how), process \(getpid()), notes in \(options.folder.path)")
        do { try device?.start() } catch { return fail("\(error)") }
        if let typing = options.typing {
            // Typed once the window is on screen, as a person would.
            let editor = newNote()
            editor.window.afterNextPaint { [options] in
                editor.controller.type(typing)
                if let cursor = options.cursor { editor.controller.placeCursor(at: cursor) }
                if let label = options.label { editor.controller.pick(label) }
                editor.controller.focusText()
                // Said once what the typing started has run (the undo group closed, the menus
                // revalidated): low-priority idles run after every other pending source.
                MainLoop.idle(priority: .low) {
                    // Where the label strip is, for a test that clicks it (X11 only).
                    if let place = editor.controller.labelStrip.placeOnX11() {
                        say("label strip in X window \(place.window) at \(place.x),\(place.y)")
                    }
                    say("editing \(shown(editor.controller.note.name)), cursor at \(editor.controller.cursor)")
                    self.takeScreenshotOnce(of: editor.window)
                }
            }
        }
    }

    func application(_ application: Application,
                     didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool {
        if let type = launchOptions?[.userActivityType] as? String { say("launched to continue \(shown(type))") }
        return true
    }

    /// Files opened with the app (or passed on by another launch of it): each in its window.
    func application(_ application: Application, open urls: [URL]) {
        for url in urls {
            do {
                let note = try NoteStore.load(url)
                openEditor(for: note)
                say("opened \(shown(url.path))")
            } catch {
                say("error: cannot open \(shown(url.path)): \(error)")
            }
        }
    }

    // MARK: Handoff

    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        say("continuing \(shown(userActivityType))…")
        return false
    }

    /// A note from another device. If its identity (`id`) is a note's here — it was continued
    /// from here before — that note: its window (opened, or brought forward if open) shows the
    /// text from the other device. Otherwise kept in this device's notes as a new note (under a
    /// name of its own if another note here has that name) with that identity. Restored by the
    /// note's editor. Everything in `userInfo` came from another device: checked and bounded.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        guard userActivity.activityType == NoteEditorController.activityType, let info = userActivity.userInfo,
              let name = info["name"] as? String, name.utf8.count <= 4096, let text = info["text"] as? String,
              text.utf8.count <= NoteStore.sizeLimit else { return false }
        let identity = Self.identity(info["id"])
        let note = store.incoming(named: name, text: text, identity: identity)
        let known = editors[note.file.path] != nil
        say("continuing \(shown(name)) as \(shown(note.name))\(identity.map { " (note \($0.uuidString))" } ?? ""), \(known ? "in its open window" : "in a new window")")
        let editor = openEditor(for: note)
        // Restored once the window is on screen (GTK lays the text out for it first).
        editor.window.afterNextPaint { [options] in
            restorationHandler([editor.controller])
            if let typing = options.typingWhenContinued {
                editor.controller.type(typing)
                editor.controller.focusText()
                say("typed into \(shown(editor.controller.note.name)), cursor at \(editor.controller.cursor)")
            }
            self.takeScreenshotOnce(of: editor.window)
        }
        return true
    }

    /// The note identity another device sent: a UUID in its string form, else none.
    private static func identity(_ value: Any?) -> UUID? {
        guard let string = value as? String else {
            if value != nil { say("ignored a note identity that is not a string") }
            return nil
        }
        guard string.utf8.count <= 64, let identity = UUID(uuidString: string) else {
            say("ignored a note identity that is not a UUID: \(shown(String(string.prefix(64))))")
            return nil
        }
        return identity
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error) {
        say("could not continue \(shown(userActivityType)): \(error.localizedDescription)")
    }

    func applicationWillTerminate(_ notification: Notification) {
        for editor in editors.values { editor.controller.save() }
        if signalSource != 0 { g_source_remove(signalSource) }
        device?.stop()
        say("applicationWillTerminate: notes saved")
    }

    // MARK: Windows

    /// Ctrl+N, or New: a new note in its window.
    func newNote(_ sender: Any?) { newNote() }

    /// Window ▸ Notes: the list of notes in front.
    func showNoteList(_ sender: Any?) { listWindow.present() }

    @discardableResult
    private func newNote() -> (controller: NoteEditorController, window: NotesWindow) {
        openEditor(for: store.newNote())
    }

    /// Closing the last window quits, as GTK apps do.
    func applicationShouldTerminateAfterLastWindowClosed(_ sender: Application) -> Bool { true }

    /// The note's window, made if it is not open, in front.
    @discardableResult
    private func openEditor(for note: Note) -> (controller: NoteEditorController, window: NotesWindow) {
        if let open = editors[note.file.path] {
            open.window.present()
            return open
        }
        let controller = NoteEditorController(note: note, store: store)
        let path = note.file.path
        let window = NotesWindow(title: note.title, controller: controller, width: 520, height: 380)
        window.onClose = { [unowned self] in
            controller.save()
            controller.userActivity?.invalidate()
            editors[path] = nil
        }
        controller.onSaved = { [unowned self] _ in list.reload() }
        controller.onContinuedElsewhere = { [unowned self, weak window] in
            guard let window, let file = options.bannerScreenshot else { return }
            options.bannerScreenshot = nil
            picture(of: window, to: file, then: {})
        }
        controller.onRetitled = { [weak window] title in window?.window.title = title }
        editors[path] = (controller, window)
        window.present()
        controller.focusText()
        return (controller, window)
    }

    /// With `--screenshot`: a picture of `window` once drawn (the first time only).
    private func takeScreenshotOnce(of window: NotesWindow) {
        guard let file = options.screenshot, !screenshotTaken else { return }
        screenshotTaken = true
        let quit = options.quitAfterScreenshot
        picture(of: window, to: file) { if quit { Application.shared.terminate(nil) } }
    }

    /// Saves a picture of `window` at `file` once GTK has drawn its current state, then runs `done`.
    private func picture(of window: NotesWindow, to file: URL, then done: @escaping @MainActor () -> Void) {
        guard let gtkWindow = window.gtkWindow else { return done() }
        let picture = WindowPicture(of: gtkWindow)
        // Two frames: in the first GTK lays the text out and the editor scrolls to the cursor.
        window.afterNextPaint { window.afterNextPaint {
            do {
                let size = try picture.save(to: file)
                say("screenshot saved to \(file.path) (\(size.width)x\(size.height))")
            } catch {
                say("error: no screenshot: \(error)")
            }
            done()
        } }
    }

    /// A still cursor, so that a picture shows it whenever it is taken.
    private static func stopCursorBlinking() {
        guard let settings = gtk_settings_get_default() else { return }
        var value = GValue()
        g_value_init(&value, g_type_from_name("gboolean"))
        g_value_set_boolean(&value, 0)
        g_object_set_property(UnsafeMutableRawPointer(settings).assumingMemoryBound(to: GObject.self), "gtk-cursor-blink", &value)
        g_value_unset(&value)
    }
}
