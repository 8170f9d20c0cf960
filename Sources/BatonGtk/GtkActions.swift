import Baton
import CGtk
import Foundation

/// GTK actions (`GAction`) that send Baton's typed actions along the responder chain.
///
/// Each action added here is a `GSimpleAction` in a `GActionMap`: a menu item, a button's
/// `action-name` or a `GtkShortcut` naming `"<prefix>.<name>"` activates it, and its activation
/// calls `Application.shared.sendAction(_:to:from:)` with a nil target, so the action goes to
/// the key window's first responder and up its chain, as AppKit sends a menu item's action
/// (NSApplication `sendAction(_:to:from:)`, "The Responder Chain"). The sender is this
/// `GtkActions`. An action added for a Baton `MenuItem` (`add(_:named:)` with the item, as
/// `GtkMenuBar` does) chooses the item instead: its target or the chain, the item as sender.
///
/// Each action is enabled only while Baton would send it somewhere, by AppKit's automatic
/// enabling (`Application.isEnabled(_:to:)`): its target is found along the responder chain, and
/// that target's `validateUserInterfaceItem(_:)` decides when it adopts
/// `UserInterfaceValidations` (the item is a `GtkActions.Item`: its `action` is the typed
/// action, its `name` the GAction's). The `enabled` state of every action is set again each
/// time the app updates its windows (`Application.didUpdateNotification`, which Baton posts in
/// the loop's next turn after the key or main window, a first responder or activation changed) and
/// when `update()` is called; a disabled GAction is not activated by GTK (a menu item shows it
/// insensitive, a shortcut lets its key through). Activation validates once more, and sends
/// nothing if the action is no longer enabled.
///
/// The actions' signal handlers are released by `removeAll()` (a `GtkBackedWindow` calls it
/// when it closes) or when the object is released.
@MainActor
public final class GtkActions {
    /// The prefix the actions are found under: `"win"` for a window's, `"app"` for an
    /// application's.
    public let prefix: String

    /// The action map the actions are added to (a `GSimpleActionGroup`, a
    /// `GtkApplicationWindow` or a `GtkApplication`), referenced until `removeAll()`.
    private var map: OpaquePointer?
    /// The added actions by name: the `GSimpleAction`, its `activate` handler, and how it is
    /// validated (`Application.isEnabled(_:to:)` for the item validators are given).
    private var entries: [String: (action: OpaquePointer, handler: gulong, isEnabled: @MainActor () -> Bool)] = [:]
    /// Observes `Application.didUpdateNotification`, until `removeAll()`.
    private var updateObserver: (any NSObjectProtocol)?

    /// What a validator is given for one of these actions (`ValidatedUserInterfaceItem`), as
    /// AppKit gives the menu item.
    public struct Item: ValidatedUserInterfaceItem {
        /// The typed action the GAction sends.
        public let action: AnyAction?
        /// 0: GTK actions have no tag.
        public let tag = 0
        /// The GAction's name (without the prefix).
        public let name: String
    }

    /// Adds the actions to `actionMap` (a `GActionMap *`: a `GtkApplication` for `"app"`, a
    /// `GtkApplicationWindow` for `"win"`), under `prefix`.
    public init(actionMap: OpaquePointer, prefix: String) {
        self.prefix = prefix
        map = actionMap
        g_object_ref(UnsafeMutableRawPointer(actionMap))
        observeUpdates()
    }

    /// Adds the actions to a new action group inserted into `widget` under `prefix`
    /// (`gtk_widget_insert_action_group`): the widget and everything inside it find them as
    /// `"<prefix>.<name>"`.
    public init(insertingInto widget: UnsafeMutablePointer<GtkWidget>, prefix: String) {
        self.prefix = prefix
        let group = g_simple_action_group_new()!
        gtk_widget_insert_action_group(widget, prefix, OpaquePointer(group))
        map = OpaquePointer(group)  // the widget holds its own reference; this one is ours
        observeUpdates()
    }

    private func observeUpdates() {
        updateObserver = NotificationCenter.default.addObserver(
            forName: Application.didUpdateNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.update() }
        }
    }

    isolated deinit { removeAll() }

    /// The names of the actions added and not removed.
    public var names: [String] { entries.keys.sorted() }

    /// Adds an action called `name` (found as `"<prefix>.<name>"`) that sends `action` to the
    /// first responder (`sendAction(action, to: nil, from: self)`) each time GTK activates it,
    /// enabled from now on as the responder chain says (see above). An action of the same name
    /// is replaced.
    public func add<Handler>(_ action: Action<Handler>, named name: String) {
        let item = Item(action: AnyAction(action), name: name)
        add(named: name, state: nil, isEnabled: { Application.shared.isEnabled(item) }) { [weak self] in
            guard let self else { return }
            Application.shared.sendAction(action, to: nil, from: self)
        }
    }

    /// Adds an action called `name` that chooses `menuItem` each time GTK activates it
    /// (`MenuItem.performAction(in:)`: its action goes to its target, or along the responder
    /// chain, with the item as sender). It is enabled as `Menu.validate(_:in:)` says: by the
    /// responder chain and the target's validator when the item's menu `autoenablesItems`,
    /// by the item's `isEnabled` otherwise. An item whose `state` is not `.off` gets a
    /// boolean state (true when `.on`), so GTK's menus show a check mark. The item is held
    /// weakly; an action of the same name is replaced.
    public func add(_ menuItem: MenuItem, named name: String) {
        let state: Bool? = menuItem.state == .off ? nil : menuItem.state == .on
        add(named: name, state: state, isEnabled: { [weak menuItem] in menuItem.map { Menu.validate($0) } ?? false }) {
            [weak menuItem] in menuItem?.performAction()
        }
    }

    private func add(named name: String, state: Bool?, isEnabled: @escaping @MainActor () -> Bool,
                     perform: @escaping @MainActor () -> Void) {
        guard let map else { return }
        remove(named: name)
        let simple = state.map { g_simple_action_new_stateful(name, nil, g_variant_new_boolean($0 ? 1 : 0))! }
            ?? g_simple_action_new(name, nil)!
        let handler = GtkSignal.connect(UnsafeMutableRawPointer(simple), "activate") { [weak self] _ in
            // Validated again: what the chain can handle may have changed since the last update.
            guard let self, self.validate(named: name) else { return }
            perform()
        }
        g_action_map_add_action(map, simple)
        entries[name] = (simple, handler, isEnabled)
        validate(named: name)
    }

    /// The `GSimpleAction` called `name` (a `GAction *`), while it is added; GTK's own
    /// `g_action_get_enabled` on it says what menus and shortcuts see.
    public func gAction(named name: String) -> OpaquePointer? { entries[name]?.action }

    /// Whether the action called `name` is enabled now (`Application.isEnabled(_:to:)` with its
    /// item): false for an action not added.
    public func isEnabled(named name: String) -> Bool {
        entries[name].map { $0.isEnabled() } ?? false
    }

    /// Sets each action's GTK `enabled` state from the responder chain now, as AppKit's
    /// `NSMenu.update()` does for its items. Called on each `Application.didUpdateNotification`;
    /// call it yourself after a change the responder chain does not see.
    public func update() {
        for name in names { validate(named: name) }
    }

    /// Sets the `enabled` state of the action called `name` from the chain; returns it.
    @discardableResult
    private func validate(named name: String) -> Bool {
        guard let entry = entries[name] else { return false }
        let enabled = entry.isEnabled()
        if (g_action_get_enabled(entry.action) != 0) != enabled {
            g_simple_action_set_enabled(entry.action, enabled ? 1 : 0)
        }
        return enabled
    }

    /// Removes the action called `name`, and its handler.
    public func remove(named name: String) {
        guard let entry = entries.removeValue(forKey: name) else { return }
        g_signal_handler_disconnect(UnsafeMutableRawPointer(entry.action), entry.handler)
        if let map { g_action_map_remove_action(map, name) }
        g_object_unref(UnsafeMutableRawPointer(entry.action))
    }

    /// Removes every action and lets go of the action map.
    public func removeAll() {
        if let updateObserver { NotificationCenter.default.removeObserver(updateObserver) }
        updateObserver = nil
        for name in names { remove(named: name) }
        if let map { g_object_unref(UnsafeMutableRawPointer(map)) }
        map = nil
    }
}
