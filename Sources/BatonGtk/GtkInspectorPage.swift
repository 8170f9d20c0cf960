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
/// opens the Inspector while it starts. It costs nothing until the Inspector makes it, and
/// nothing while it is not on screen: it shows the app's inspection
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
