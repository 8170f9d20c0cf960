import BatonGtk
import ExampleSupport
import Foundation

/// One note in its window: a banner (shown once the note continues on another device) above a
/// text view. Its user activity carries the note — identity, name, text, cursor — and is current while
/// the person works in the text view. Editing or moving the cursor only marks the activity
/// `needsSave`; `updateUserActivityState(_:)` fills it when Handoff needs it (Apple's lazy
/// save). The text is saved to the note's file a moment after each change, and on close.
/// Each change is registered with the window's undo manager (GTK's own undo is off), so Edit ▸
/// Undo and Redo undo it, enabled while the undo manager can. Under the text, a label strip
/// (`NoteLabelStrip`, a custom view taking mouse and key events) picks the note's colour label,
/// which travels in the activity too; each pick is undoable the same way.
final class NoteEditorController: ViewController, UserActivityDelegate, Undoing, UserInterfaceValidations {
    static let activityType = "com.example.gtknotes.editing"

    private(set) var note: Note
    let store: NoteStore
    /// Called after the note was saved to its file.
    var onSaved: (@MainActor (Note) -> Void)?
    /// Called once the note continued on another device and the banner says so.
    var onContinuedElsewhere: (@MainActor () -> Void)?
    /// Called when the note's title (its first line) may have changed.
    var onRetitled: (@MainActor (String) -> Void)?

    /// The editor's widgets: a vertical box holding the banner and the scrolled text view.
    let content: Widget
    let textView: Widget
    let banner: Widget
    let labelStrip: NoteLabelStrip
    private let buffer: UnsafeMutablePointer<GtkTextBuffer>
    private var pendingSave: LoopSource?
    /// True while the buffer is being filled by the program, not the person.
    private var filling = false

    init(note: Note, store: NoteStore) {
        self.note = note
        self.store = store
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        let banner = gtk_label_new(nil)!
        gtk_label_set_markup(banner.opaque, "<b>Continued on another device.</b> This note is open there now.")
        gtk_widget_set_visible(banner, 0)
        gtk_widget_set_margin_top(banner, 6)
        gtk_widget_set_margin_bottom(banner, 6)
        let textView = gtk_text_view_new()!
        let view = textView.cast(GtkTextView.self)
        gtk_text_view_set_wrap_mode(view, GTK_WRAP_WORD_CHAR)
        for margin in [gtk_text_view_set_left_margin, gtk_text_view_set_right_margin, gtk_text_view_set_top_margin,
                       gtk_text_view_set_bottom_margin] { margin(view, 12) }
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(scrolled.opaque, textView)
        gtk_widget_set_vexpand(scrolled, 1)
        gtk_box_append(content.cast(GtkBox.self), banner)
        gtk_box_append(content.cast(GtkBox.self), scrolled)
        let labelStrip = NoteLabelStrip(label: note.label)
        for margin in [gtk_widget_set_margin_start, gtk_widget_set_margin_top, gtk_widget_set_margin_bottom] { margin(labelStrip.widget, 6) }
        gtk_box_append(content.cast(GtkBox.self), labelStrip.widget)
        (self.content, self.banner, self.textView, self.labelStrip) = (content, banner, textView, labelStrip)
        buffer = gtk_text_view_get_buffer(view)
        gtk_text_buffer_set_enable_undo(buffer, 0)  // the window's undo manager undoes
        super.init(nibName: nil, bundle: nil)
        title = note.title
        fill(with: note.text, cursor: note.text.unicodeScalars.count)
        GtkSignal.connect(UnsafeMutableRawPointer(buffer), "changed") { [weak self] in self?.edited() }
        GtkSignal.connect(UnsafeMutableRawPointer(buffer), "mark-set", withArguments: { [weak self] _, mark in
            guard let self, let mark, mark == UnsafeMutableRawPointer(gtk_text_buffer_get_insert(self.buffer)) else { return }
            if !self.filling { self.userActivity?.needsSave = true }
        })
        labelStrip.onPick = { [weak self] label, previous in self?.labelPicked(label, previous: previous) }
        let activity = UserActivity(activityType: Self.activityType)
        activity.title = note.title
        activity.delegate = self
        userActivity = activity
        activity.needsSave = true
    }

    /// The editor's view wraps its widgets; the text view's own `WidgetView` inside it is the
    /// first responder while GTK's focus is in the text view, so this controller's activity
    /// (the first up the chain) is current while the person writes.
    override func loadView() {
        let view = WidgetView(widget: content, identifier: "note")
        view.addSubview(WidgetView(widget: textView, identifier: "note text"))
        view.addSubview(labelStrip)
        self.view = view
    }

    // MARK: The text

    /// The text the text view holds now.
    var text: String {
        var start = GtkTextIter(), end = GtkTextIter()
        gtk_text_buffer_get_bounds(buffer, &start, &end)
        let characters = gtk_text_buffer_get_text(buffer, &start, &end, 0)!
        defer { g_free(characters) }
        return String(cString: characters)
    }

    /// Where the cursor is, in characters (Unicode scalars) from the start.
    var cursor: Int {
        var iter = GtkTextIter()
        gtk_text_buffer_get_iter_at_mark(buffer, &iter, gtk_text_buffer_get_insert(buffer))
        return Int(gtk_text_iter_get_offset(&iter))
    }

    /// Puts the cursor at `offset` characters from the start (clamped to the text).
    func placeCursor(at offset: Int) {
        var iter = GtkTextIter()
        gtk_text_buffer_get_iter_at_offset(buffer, &iter, Int32(clamping: max(0, offset)))
        gtk_text_buffer_place_cursor(buffer, &iter)
    }

    /// Types `text` at the cursor, as the person would.
    func type(_ text: String) { gtk_text_buffer_insert_at_cursor(buffer, text, -1) }

    /// Focuses the text view — which makes its `WidgetView` first responder and so this
    /// controller's activity current — and scrolls the cursor into sight once the text view has
    /// drawn the text (GTK scrolls by estimated line heights until it has laid the lines out).
    func focusText() {
        gtk_widget_grab_focus(textView)
        guard let clock = gtk_widget_get_frame_clock(textView) else { return }
        GtkSignal.once(UnsafeMutableRawPointer(clock), "after-paint") { [weak self] in
            guard let self else { return }
            gtk_text_view_scroll_mark_onscreen(textView.cast(GtkTextView.self), gtk_text_buffer_get_insert(buffer))
        }
        gtk_widget_queue_draw(textView)
    }

    private func fill(with text: String, cursor offset: Int) {
        filling = true
        gtk_text_buffer_set_text(buffer, text, -1)
        placeCursor(at: offset)
        filling = false
    }

    private func edited() {
        guard !filling else { return }
        registerUndo(restoring: note.text)
        changed()
    }

    /// The note takes the text view's text: retitled, offered for Handoff, saved soon.
    private func changed() {
        note.text = text
        retitle()
        // Too large to travel in an activity (its payload is capped): kept here only.
        userActivity?.isEligibleForHandoff = note.text.utf8.count <= NoteStore.sizeLimit
        userActivity?.needsSave = true
        pendingSave?.cancel()
        pendingSave = MainLoop.after(.milliseconds(800)) { [weak self] in self?.save() }
    }

    // MARK: The label

    /// Picks `label` as the person would in the strip (`--label` at launch).
    func pick(_ label: NoteLabel) {
        let previous = note.label
        labelStrip.show(label)
        labelPicked(label, previous: previous)
    }

    /// The person picked `label` in the strip: the note's, undoable.
    private func labelPicked(_ label: NoteLabel, previous: NoteLabel) {
        undoManager?.registerUndo(withTarget: self) { $0.setLabel(previous) }
        undoManager?.setActionName("Label")
        labelChanged(to: label)
    }

    /// Undoing or redoing a pick: `label` shown, and the way back registered.
    private func setLabel(_ label: NoteLabel) {
        let previous = note.label
        undoManager?.registerUndo(withTarget: self) { $0.setLabel(previous) }
        undoManager?.setActionName("Label")
        labelStrip.show(label)
        labelChanged(to: label)
    }

    private func labelChanged(to label: NoteLabel) {
        note.label = label
        userActivity?.needsSave = true
        say("label of \(shown(note.name)): \(label.rawValue)")
    }

    // MARK: Undo

    /// Registers with the window's undo manager how to put `previous` back.
    private func registerUndo(restoring previous: String) {
        undoManager?.registerUndo(withTarget: self) { $0.replaceText(with: previous) }
        undoManager?.setActionName("Typing")
    }

    /// Undoing or redoing: `replacement` in the text view, and the way back registered (a
    /// redo while undoing, an undo while redoing).
    private func replaceText(with replacement: String) {
        registerUndo(restoring: note.text)
        fill(with: replacement, cursor: replacement.unicodeScalars.count)
        changed()
    }

    /// Edit ▸ Undo (Ctrl+Z).
    func undo(_ sender: Any?) {
        let name = undoManager?.undoActionName ?? ""
        undoManager?.undo()
        sayOnceSettled("undid \(name)")
    }

    /// Edit ▸ Redo (Shift+Ctrl+Z).
    func redo(_ sender: Any?) {
        let name = undoManager?.redoActionName ?? ""
        undoManager?.redo()
        sayOnceSettled("redid \(name)")
    }

    /// Says what undo or redo did once everything it started has run (the menus revalidated):
    /// a low-priority idle runs after every other pending source.
    private func sayOnceSettled(_ what: String) {
        MainLoop.idle(priority: .low) { [weak self] in
            guard let self else { return }
            say("\(what): \(shown(note.name)) holds \"\(shown(text))\"")
        }
    }

    /// Undo and Redo are enabled while the undo manager can (AppKit's rule for them).
    func validateUserInterfaceItem(_ item: any ValidatedUserInterfaceItem) -> Bool {
        if item.action == .undo { return undoManager?.canUndo ?? false }
        if item.action == .redo { return undoManager?.canRedo ?? false }
        return true
    }

    private func retitle() {
        guard title != note.title else { return }
        title = note.title
        userActivity?.title = note.title
        onRetitled?(note.title)
    }

    /// Writes the note to its file now, if it changed since.
    func save() {
        pendingSave?.cancel()
        pendingSave = nil
        if let saved = try? NoteStore.load(note.file), saved.text == note.text { return }
        do {
            try store.save(note)
            onSaved?(note)
        } catch {
            say("error: cannot save \(note.name): \(error)")
        }
    }

    // MARK: Handoff

    /// Apple's lazy save: the activity is filled only when Handoff needs it.
    override func updateUserActivityState(_ activity: UserActivity) {
        var entries: [String: Any] = ["name": note.name, "text": note.text, "cursor": cursor, "label": note.label.rawValue]
        // Which note this is (NoteIdentities): continued back here, it updates this note.
        if let identity = store.identity(of: note) { entries["id"] = identity.uuidString }
        activity.addUserInfoEntries(from: entries)
        activity.title = note.title
    }

    /// The note from another device: its text, with the cursor where it was there. Everything
    /// in `userInfo` came from another device: the text is bounded, the cursor clamped.
    override func restoreUserActivityState(_ activity: UserActivity) {
        super.restoreUserActivityState(activity)
        guard activity.activityType == Self.activityType, let info = activity.userInfo,
              let text = info["text"] as? String, text.utf8.count <= NoteStore.sizeLimit else { return }
        let offset = min(max(info["cursor"] as? Int ?? 0, 0), text.unicodeScalars.count)
        undoManager?.removeAllActions(withTarget: self)  // the note came back changed elsewhere
        fill(with: text, cursor: offset)
        gtk_widget_set_visible(banner, 0)  // back here: no longer only continued elsewhere
        note.text = text
        // A label this app does not know (a newer version's) is no label here.
        note.label = (info["label"] as? String).flatMap { NoteLabel(rawValue: $0) } ?? .none
        labelStrip.show(note.label)
        retitle()
        save()
        focusText()
        let shownText = self.text, shownCursor = cursor
        let before = String(shownText.unicodeScalars.prefix(shownCursor)), after = String(shownText.unicodeScalars.dropFirst(shownCursor))
        say("restored \(shown(note.name)): the text view holds \(shownText.unicodeScalars.count) characters, cursor at \(shownCursor): \"\(shown(before))|\(shown(after))\", label \(note.label.rawValue)")
    }

    /// The note continues on another device: say so in the window.
    func userActivityWasContinued(_ userActivity: UserActivity) {
        gtk_widget_set_visible(banner, 1)
        say("userActivityWasContinued: \(shown(note.name)) continues on another device; banner shown: \(gtk_widget_get_visible(banner) != 0)")
        onContinuedElsewhere?()
    }
}
