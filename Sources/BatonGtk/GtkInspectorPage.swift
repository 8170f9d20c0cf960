import Baton
import BatonLoop
import CGtk
import Foundation

/// Baton's page in GTK's own Inspector (the `gtk-inspector-page` extension point, as
/// libadwaita adds its "Adwaita" page): the app's windows with the key and main window
/// marked, the responder chains of the key and main windows from the first responder up to
/// the app delegate with the activity each responder holds, the current activity and the other
/// live ones (holders, saves, payload size, whether each is offered to other devices and why
/// not), the activities other devices offer here, where the main menu's actions go now, and
/// which Baton window or view backs the object selected in the Inspector.
///
/// Open the Inspector with Ctrl+Shift+I (GTK asks once whether to), with `GTK_DEBUG=interactive`
/// in the environment, or in code with `gtk_window_set_interactive_debugging(1)`; then pick
/// "Baton" in its top bar.
///
/// BatonGtk registers the page just before GTK starts (`GtkRuntime.initialize()`, or when a
/// `GtkApplicationMain` app makes its `GtkApplication`), since with `GTK_DEBUG=interactive` GTK
/// opens the Inspector while it starts. It costs nothing until the
/// Inspector makes it, and nothing while it is not on screen: it shows the app's inspection
/// snapshot (`Application.inspection()`, the facts `baton inspect` prints) and follows its
/// changes (`Application.observeInspection(_:)`, once per loop turn), the windows' updates
/// (`Application.didUpdateNotification`, for the menu actions' validation) and the activities
/// other devices offer (`nearbyActivitiesDidChangeNotification`) only between GTK's `map` and
/// `unmap` of the page. No timer.
@MainActor
public enum GtkInspectorPage {
    /// The page's GType name, a `GtkBox` subclass: what the Inspector makes for the page.
    nonisolated public static let typeName = "BatonInspectorPage"
    /// The page's title in the Inspector's top bar (its `title` property).
    nonisolated public static let title = "Baton"
    /// The page's name in the Inspector's stack of pages (the extension's name).
    nonisolated public static let name = "baton"
    /// GTK's extension point for extra Inspector pages.
    static let extensionPoint = "gtk-inspector-page"

    /// Registers the page's GType and implements GTK's extension point with it; a second call
    /// does nothing. It needs no display, so it runs before `gtk_init`. GTK registers the
    /// extension point itself when the Inspector first opens; `g_io_extension_point_register`
    /// returns the one point of that name whoever registers it first, so this may run before
    /// or after GTK did.
    static func register() {
        _ = registeredType
    }

    /// The page's GType, once registered.
    static let registeredType: GType = {
        let type = g_type_register_static_simple(
            gtk_box_get_type(), typeName,
            guint(MemoryLayout<GtkBoxClass>.size), pageClassInit,
            guint(MemoryLayout<GtkBox>.size), pageInstanceInit, GTypeFlags(rawValue: 0))
        _ = g_io_extension_point_register(extensionPoint)
        g_io_extension_point_implement(extensionPoint, type, name, 10)
        return type
    }()
}

/// The page's GObject properties: the two the Inspector reads or sets on every extra page.
private enum PageProperty {
    /// `title` (read-only string): the page's name in the Inspector's top bar.
    static let title: guint = 1
    /// `object` (read-write GObject): the object selected in the Inspector.
    static let object: guint = 2
}

/// Where a page keeps its controller's box and the selected object (GObject data keys).
private let controllerKey = "baton-inspector-page-controller"
private let selectedKey = "baton-inspector-page-object"

/// `G_PARAM_READABLE` and `G_PARAM_READWRITE` (GParamFlags' constants do not import: one of
/// them is a negative `gint`).
private let readable = GParamFlags(rawValue: 1 << 0)
private let readWrite = GParamFlags(rawValue: 1 << 0 | 1 << 1)

private let pageClassInit: GClassInitFunc = { klass, _ in
    guard let objectClass = klass?.assumingMemoryBound(to: GObjectClass.self) else { return }
    objectClass.pointee.get_property = pageGetProperty
    objectClass.pointee.set_property = pageSetProperty
    g_object_class_install_property(
        objectClass, PageProperty.title,
        g_param_spec_string("title", "Title", "The page's title in the Inspector", nil, readable))
    g_object_class_install_property(
        objectClass, PageProperty.object,
        g_param_spec_object("object", "Object", "The object selected in the Inspector", g_type_from_name("GObject"),
                            readWrite))
}

private let pageInstanceInit: GInstanceInitFunc = { instance, _ in
    guard let instance else { return }
    MainThreadRules.requireLoopThread("GTK making Baton's Inspector page")
    let address = UInt(bitPattern: UnsafeMutableRawPointer(instance))
    MainActor.assumeIsolated {
        let page = UnsafeMutableRawPointer(bitPattern: address)!
        let box = InspectorPageBox(InspectorPageController(page: page))
        g_object_set_data_full(page.assumingMemoryBound(to: GObject.self), controllerKey, box.retainedOpaque(),
                               CallbackBox.destroyNotify)
    }
}

private let pageGetProperty: @convention(c) (UnsafeMutablePointer<GObject>?, guint, UnsafeMutablePointer<GValue>?,
                                             UnsafeMutablePointer<GParamSpec>?) -> Void = { object, id, value, _ in
    switch id {
    case PageProperty.title: g_value_set_string(value, GtkInspectorPage.title)
    case PageProperty.object: g_value_set_object(value, g_object_get_data(object, selectedKey))
    default: break
    }
}

private let pageSetProperty: @convention(c) (UnsafeMutablePointer<GObject>?, guint, UnsafePointer<GValue>?,
                                             UnsafeMutablePointer<GParamSpec>?) -> Void = { object, id, value, _ in
    guard id == PageProperty.object, let object else { return }
    MainThreadRules.requireLoopThread("GTK's Inspector selecting an object")
    let selected = g_value_get_object(value)
    if let selected { g_object_ref(selected) }
    g_object_set_data_full(object, selectedKey, selected, selected == nil ? nil : g_object_unref)
    guard let box = g_object_get_data(object, controllerKey) else { return }
    let (boxAddress, address) = (UInt(bitPattern: box), UInt(bitPattern: selected))
    MainActor.assumeIsolated {
        InspectorPageBox.borrow(UnsafeRawPointer(bitPattern: boxAddress)!).controller
            .select(UnsafeMutableRawPointer(bitPattern: address))
    }
}

/// The page's controller, held by the page (GObject data) in a box counted in
/// `LoopDiagnostics.liveCallbackBoxes` until GTK finalises the page.
private final class InspectorPageBox: CallbackBox, @unchecked Sendable {
    let controller: InspectorPageController
    init(_ controller: InspectorPageController) { self.controller = controller }
}

/// What one page shows, kept current while the page is on screen.
@MainActor
final class InspectorPageController {
    private let page: UnsafeMutablePointer<GtkWidget>
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
        self.page = page.assumingMemoryBound(to: GtkWidget.self)
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
