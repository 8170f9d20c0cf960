import Baton
import CGtk

/// GTK actions (`GAction`) that send Baton's typed actions along the responder chain.
///
/// Each action added here is a `GSimpleAction` in a `GActionMap`: a menu item, a button's
/// `action-name` or a `GtkShortcut` naming `"<prefix>.<name>"` activates it, and its activation
/// calls `Application.shared.sendAction(_:to:from:)` with a nil target, so the action goes to
/// the key window's first responder and up its chain, as AppKit sends a menu item's action
/// (NSApplication `sendAction(_:to:from:)`, "The Responder Chain"). The sender is this
/// `GtkActions`.
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
    /// The added actions by name: the `GSimpleAction` and its `activate` handler.
    private var entries: [String: (action: OpaquePointer, handler: gulong)] = [:]

    /// Adds the actions to `actionMap` (a `GActionMap *`: a `GtkApplication` for `"app"`, a
    /// `GtkApplicationWindow` for `"win"`), under `prefix`.
    public init(actionMap: OpaquePointer, prefix: String) {
        self.prefix = prefix
        map = actionMap
        g_object_ref(UnsafeMutableRawPointer(actionMap))
    }

    /// Adds the actions to a new action group inserted into `widget` under `prefix`
    /// (`gtk_widget_insert_action_group`): the widget and everything inside it find them as
    /// `"<prefix>.<name>"`.
    public init(insertingInto widget: UnsafeMutablePointer<GtkWidget>, prefix: String) {
        self.prefix = prefix
        let group = g_simple_action_group_new()!
        gtk_widget_insert_action_group(widget, prefix, OpaquePointer(group))
        map = OpaquePointer(group)  // the widget holds its own reference; this one is ours
    }

    isolated deinit { removeAll() }

    /// The names of the actions added and not removed.
    public var names: [String] { entries.keys.sorted() }

    /// Adds an action called `name` (found as `"<prefix>.<name>"`) that sends `action` to the
    /// first responder (`sendAction(action, to: nil, from: self)`) each time GTK activates it.
    /// An action of the same name is replaced.
    public func add<Handler>(_ action: Action<Handler>, named name: String) {
        guard let map else { return }
        remove(named: name)
        let simple = g_simple_action_new(name, nil)!
        let handler = GtkSignal.connectWithArgument(UnsafeMutableRawPointer(simple), "activate") { [weak self] in
            Application.shared.sendAction(action, to: nil, from: self)
        }
        g_action_map_add_action(map, simple)
        entries[name] = (simple, handler)
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
        for name in names { remove(named: name) }
        if let map { g_object_unref(UnsafeMutableRawPointer(map)) }
        map = nil
    }
}
