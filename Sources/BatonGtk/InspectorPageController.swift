import Baton
import BatonLoop
import CGtk
import Foundation

/// What one page shows, kept current while the page is on screen.
@MainActor
final class InspectorPageController {
    private let sectionsBox: UnsafeMutablePointer<GtkBox>
    /// A heading label and a body label per section shown.
    private var labels: [(heading: UnsafeMutablePointer<GtkWidget>, body: UnsafeMutablePointer<GtkWidget>)] = []
    private var selected: UnsafeMutableRawPointer?
    /// Baton's change reports while the page is on screen; nil while it is not.
    private var observation: InspectionObservation?
    /// `Application.didUpdateNotification` while the page is on screen: after the windows'
    /// update, whether the menu actions are enabled may have changed with nothing in the
    /// snapshot changing (a validator's answer).
    private var updateObserver: (any NSObjectProtocol)?
    /// `Application.nearbyActivitiesDidChangeNotification` while the page is on screen.
    private var nearbyObserver: (any NSObjectProtocol)?
    private var shown: InspectorPageContent?

    /// Builds the page's widgets inside `page` (a `BatonInspectorPage` being made) and follows
    /// its `map` and `unmap`.
    init(page: UnsafeMutableRawPointer) {
        let pageBox = page.assumingMemoryBound(to: GtkBox.self)
        gtk_orientable_set_orientation(OpaquePointer(page), GTK_ORIENTATION_VERTICAL)
        let scroller = gtk_scrolled_window_new()!
        gtk_widget_set_vexpand(scroller, 1)
        gtk_widget_set_hexpand(scroller, 1)
        gtk_box_append(pageBox, scroller)
        let content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
        for margin in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            margin(content, 18)
        }
        let intro = gtk_label_new("What Baton sees in this app, updated while this page is shown.")!
        gtk_label_set_xalign(OpaquePointer(intro), 0)
        gtk_widget_add_css_class(intro, "dim-label")
        gtk_widget_set_margin_bottom(intro, 8)
        gtk_box_append(content.boxPointer, intro)
        gtk_scrolled_window_set_child(OpaquePointer(scroller), content)
        sectionsBox = content.boxPointer
        GtkSignal.connect(page, "map") { [weak self] in self?.startFollowing() }
        GtkSignal.connect(page, "unmap") { [weak self] in self?.stopFollowing() }
    }

    isolated deinit { stopFollowing() }

    /// The Inspector selected `object` (or nothing).
    func select(_ object: UnsafeMutableRawPointer?) {
        selected = object
        if observation != nil { render(Application.shared.inspection()) }
    }

    /// The page is on screen: show the app as it is, and follow its changes (reported once per
    /// loop turn, only when the snapshot differs).
    private func startFollowing() {
        render(Application.shared.inspection())
        guard observation == nil else { return }
        observation = Application.shared.observeInspection { [weak self] inspection in self?.render(inspection) }
        updateObserver = NotificationCenter.default.addObserver(
            forName: Application.didUpdateNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.render(Application.shared.inspection()) }
        }
        nearbyObserver = NotificationCenter.default.addObserver(
            forName: Application.nearbyActivitiesDidChangeNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.render(Application.shared.inspection()) }
        }
    }

    /// The page left the screen: follow nothing until it is back.
    private func stopFollowing() {
        observation?.cancel()
        observation = nil
        for observer in [updateObserver, nearbyObserver].compactMap({ $0 }) { NotificationCenter.default.removeObserver(observer) }
        updateObserver = nil
        nearbyObserver = nil
    }

    private func render(_ inspection: ApplicationInspection) {
        let app = Application.shared
        let actions = InspectorPageContent.menuActionNames(of: app).map(app.inspectAction(named:))
        let content = InspectorPageContent(inspection, actions: actions, selected: selected, in: app)
        guard content != shown else { return }
        shown = content
        while labels.count < content.sections.count {
            let heading = gtk_label_new(nil)!, body = gtk_label_new(nil)!
            gtk_label_set_xalign(OpaquePointer(heading), 0)
            gtk_widget_set_margin_top(heading, 8)
            gtk_label_set_xalign(OpaquePointer(body), 0)
            gtk_widget_add_css_class(body, "monospace")
            gtk_box_append(sectionsBox, heading)
            gtk_box_append(sectionsBox, body)
            labels.append((heading, body))
        }
        while labels.count > content.sections.count {
            let (heading, body) = labels.removeLast()
            gtk_box_remove(sectionsBox, heading)
            gtk_box_remove(sectionsBox, body)
        }
        for (section, (heading, body)) in zip(content.sections, labels) {
            let escaped = g_markup_escape_text(section.heading, -1)
            gtk_label_set_markup(OpaquePointer(heading), "<b>\(escaped.map { String(cString: $0) } ?? "")</b>")
            g_free(escaped)
            gtk_label_set_text(OpaquePointer(body), section.lines.joined(separator: "\n"))
        }
    }
}

private extension UnsafeMutablePointer where Pointee == GtkWidget {
    /// The widget as the `GtkBox` it was made as.
    var boxPointer: UnsafeMutablePointer<GtkBox> { UnsafeMutableRawPointer(self).assumingMemoryBound(to: GtkBox.self) }
}
