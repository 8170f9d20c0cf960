import BatonGtk
import Foundation

/// The list of notes, newest first: activating one (double-click, Enter) opens it in its own
/// window.
final class NoteListController: ViewController {
    let store: NoteStore
    /// Called with the note the person picked.
    var onOpen: (@MainActor (Note) -> Void)?

    /// The scrolled list.
    let content: Widget
    private let list: Widget
    private var shownNotes: [Note] = []

    init(store: NoteStore) {
        self.store = store
        let list = gtk_list_box_new()!
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_BROWSE)
        let empty = gtk_label_new("No notes yet: press New.")!
        gtk_widget_add_css_class(empty, "dim-label")
        gtk_list_box_set_placeholder(list.opaque, empty)
        let scrolled = gtk_scrolled_window_new()!
        gtk_scrolled_window_set_child(scrolled.opaque, list)
        gtk_widget_set_vexpand(scrolled, 1)
        (self.list, content) = (list, scrolled)
        super.init(nibName: nil, bundle: nil)
        title = "Notes"
        GtkSignal.connect(list.object, "row-activated", withArgument: { [weak self] row in
            guard let self, let row else { return }
            let index = Int(gtk_list_box_row_get_index(row.assumingMemoryBound(to: GtkListBoxRow.self)))
            if self.shownNotes.indices.contains(index) { self.onOpen?(self.shownNotes[index]) }
        })
        reload()
    }

    override func loadView() { view = WidgetView(widget: content, identifier: "note list") }

    /// Lists the notes in the store again.
    func reload() {
        while let child = gtk_widget_get_first_child(list) { gtk_list_box_remove(list.opaque, child) }
        shownNotes = store.notes()
        for note in shownNotes {
            let label = gtk_label_new(note.title)!
            gtk_label_set_xalign(label.opaque, 0)
            gtk_label_set_ellipsize(label.opaque, PANGO_ELLIPSIZE_END)
            for margin in [gtk_widget_set_margin_start, gtk_widget_set_margin_end, gtk_widget_set_margin_top,
                           gtk_widget_set_margin_bottom] { margin(label, 8) }
            gtk_list_box_append(list.opaque, label)
        }
    }
}
