import Baton
import BatonLoop
import CGLib
import CGtk
import Foundation

/// `Application.mainMenu` as a `GtkApplication`'s menu bar: a `GMenu` model set with
/// `gtk_application_set_menubar`, whose items activate `"app.…"` actions that choose the
/// Baton `MenuItem`s, and whose key equivalents are the application's accelerators.
///
/// - Each top-level item's submenu is a menu of the bar, titled by the submenu's title (the
///   item's when it has none), as AppKit's menu bar shows it. Separators divide a menu into
///   `GMenu` sections; hidden items are left out; nested submenus are submenus.
/// - Each item with an action is a GAction of `GtkActions` under `"app"`
///   (`GtkActions.add(_:named:)` for a menu item): activating it calls
///   `MenuItem.performAction(in:)`, so the action goes to the item's target or along the
///   responder chain with the item as sender. It is enabled by the one rule of automatic
///   enabling (`Menu.validate(_:in:)`, `Application.isEnabled(_:to:)`): GTK greys out what the
///   chain would not handle, and refuses to activate it. An item that is on or mixed has a
///   boolean state, shown as a check mark.
/// - A key equivalent becomes an accelerator (`gtk_application_set_accels_for_action`):
///   `.command` is `<Primary>` (Control on Linux), `.shift` `<Shift>`, `.option` `<Alt>`,
///   `.control` `<Control>`; an uppercase letter adds `<Shift>`, as in AppKit. A GtkApplication
///   handles accelerators in its windows before the focused widget does, as AppKit offers key
///   equivalents to the main menu before `keyDown(with:)`.
///
/// The bar is rebuilt in the loop's next turn after `mainMenu` is set
/// (`Application.didChangeMainMenuNotification`) or any menu's items change
/// (`Menu.didAdd…`, `didRemove…`, `didChangeItemNotification`), or at once by `rebuild()`.
/// GTK does not ask before it opens a menu, so the items' enabled states are set again
/// whenever the app updates its windows (`GtkActions`) and whenever an undo manager
/// changes (an undo group closed, an undo or a redo), since undo and redo validate by it.
///
/// `GtkApplicationHost` makes one at startup; `GtkApplicationWindow`s show it
/// (`gtk_application_window_set_show_menubar`).
@MainActor
public final class GtkMenuBar {
    /// The menu bar's model (a `GMenuModel *`, held until the next rebuild or `invalidate()`);
    /// nil before the first build.
    public private(set) var model: UnsafeMutablePointer<GMenuModel>?
    /// The actions of the items, under `"app"`.
    public let actions: GtkActions
    /// The action names (without `"app."`) and accelerators set by the last build.
    public private(set) var accelerators: [String: String] = [:]

    private var application: UnsafeMutablePointer<GtkApplication>?
    private var observers: [any NSObjectProtocol] = []
    private var pendingRebuild: LoopSource?
    private var pendingUpdate: LoopSource?

    /// Shows `Application.shared.mainMenu` as `application`'s menu bar, now and after each
    /// change.
    public init(application: UnsafeMutablePointer<GtkApplication>) {
        self.application = application
        g_object_ref(UnsafeMutableRawPointer(application))
        actions = GtkActions(actionMap: OpaquePointer(application), prefix: "app")
        let center = NotificationCenter.default
        for name in [Application.didChangeMainMenuNotification, Menu.didAddItemNotification,
                     Menu.didRemoveItemNotification, Menu.didChangeItemNotification] {
            observers.append(center.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated { self?.scheduleRebuild() }
            })
        }
        for name in [UndoManager.didCloseUndoGroupNotification, UndoManager.didUndoChangeNotification,
                     UndoManager.didRedoChangeNotification] {
            observers.append(center.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated { self?.scheduleUpdate() }
            })
        }
        rebuild()
    }

    isolated deinit { invalidate() }

    /// Builds the model and the actions from `Application.shared.mainMenu` now and sets it as
    /// the application's menu bar (an empty bar when there is no main menu).
    public func rebuild() {
        pendingRebuild?.cancel()
        pendingRebuild = nil
        guard let application else { return }
        clearActions()
        let bar = g_menu_new()!
        for (index, item) in (Application.shared.mainMenu?.items ?? []).enumerated() where !item.isHidden && !item.isSeparatorItem {
            if let submenu = item.submenu {
                let built = build(submenu, path: "\(index)")
                g_menu_append_submenu(bar, submenu.title.isEmpty ? item.title : submenu.title, built)
                g_object_unref(UnsafeMutableRawPointer(built))
            } else {
                append(item, named: "menu-\(index)", to: bar)
            }
        }
        gtk_application_set_menubar(application, GtkMenuBar.model(bar))
        if let model { g_object_unref(UnsafeMutableRawPointer(model)) }
        model = GtkMenuBar.model(bar)
    }

    /// Takes the bar off the application and releases its model, actions, observers and
    /// pending sources. Called when the host ends.
    public func invalidate() {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers = []
        pendingRebuild?.cancel()
        pendingUpdate?.cancel()
        (pendingRebuild, pendingUpdate) = (nil, nil)
        guard let application else { return }
        clearActions()
        actions.removeAll()
        gtk_application_set_menubar(application, nil)
        if let model { g_object_unref(UnsafeMutableRawPointer(model)) }
        model = nil
        g_object_unref(UnsafeMutableRawPointer(application))
        self.application = nil
    }

    /// The GTK accelerator for `item`'s key equivalent (`"<Primary>c"`), or nil for none or a
    /// key GTK has no name for.
    public static func accelerator(for item: MenuItem) -> String? {
        guard let scalar = item.keyEquivalent.unicodeScalars.first, item.keyEquivalent.unicodeScalars.count == 1 else { return nil }
        var mask = item.keyEquivalentModifierMask
        let lower = item.keyEquivalent.lowercased()
        if lower != item.keyEquivalent { mask.insert(.shift) }
        let keyval = gdk_unicode_to_keyval(lower.unicodeScalars.first?.value ?? scalar.value)
        guard let name = gdk_keyval_name(keyval) else { return nil }
        var accelerator = ""
        if mask.contains(.command) { accelerator += "<Primary>" }
        if mask.contains(.control) { accelerator += "<Control>" }
        if mask.contains(.option) { accelerator += "<Alt>" }
        if mask.contains(.shift) { accelerator += "<Shift>" }
        return accelerator + String(cString: name)
    }

    // MARK: Building

    /// A `GMenu *` as the `GMenuModel *` it is.
    private static func model(_ menu: OpaquePointer) -> UnsafeMutablePointer<GMenuModel> { UnsafeMutablePointer(menu) }

    private func build(_ menu: Menu, path: String) -> UnsafeMutablePointer<GMenuModel> {
        let result = g_menu_new()!
        var section = g_menu_new()!
        func closeSection() {
            if g_menu_model_get_n_items(GtkMenuBar.model(section)) > 0 { g_menu_append_section(result, nil, GtkMenuBar.model(section)) }
            g_object_unref(UnsafeMutableRawPointer(section))
        }
        for (index, item) in menu.items.enumerated() where !item.isHidden {
            if item.isSeparatorItem {
                closeSection()
                section = g_menu_new()!
            } else if let submenu = item.submenu {
                let built = build(submenu, path: "\(path)-\(index)")
                g_menu_append_submenu(section, item.title, built)
                g_object_unref(UnsafeMutableRawPointer(built))
            } else {
                append(item, named: "menu-\(path)-\(index)", to: section)
            }
        }
        closeSection()
        return GtkMenuBar.model(result)
    }

    private func append(_ item: MenuItem, named name: String, to menu: OpaquePointer) {
        guard item.action != nil, let application else {
            g_menu_append(menu, item.title, nil)
            return
        }
        actions.add(item, named: name)
        g_menu_append(menu, item.title, "app.\(name)")
        if let accelerator = GtkMenuBar.accelerator(for: item) {
            accelerators[name] = accelerator
            setAccelerators([accelerator], for: name, in: application)
        }
    }

    private func clearActions() {
        if let application {
            for name in accelerators.keys { setAccelerators([], for: name, in: application) }
        }
        accelerators = [:]
        for name in actions.names { actions.remove(named: name) }
    }

    private func setAccelerators(_ accelerators: [String], for name: String, in application: UnsafeMutablePointer<GtkApplication>) {
        var strings: [UnsafeMutablePointer<CChar>?] = accelerators.map { strdup($0) } + [nil]
        defer { for pointer in strings { free(pointer) } }
        strings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_application_set_accels_for_action(application, "app.\(name)", $0)
            }
        }
    }

    // MARK: Scheduling

    private func scheduleRebuild() {
        guard pendingRebuild == nil, application != nil else { return }
        pendingRebuild = MainLoop.idle { [weak self] in
            self?.pendingRebuild = nil
            self?.rebuild()
        }
    }

    private func scheduleUpdate() {
        guard pendingUpdate == nil, application != nil else { return }
        pendingUpdate = MainLoop.idle { [weak self] in
            self?.pendingUpdate = nil
            self?.actions.update()
        }
    }
}
