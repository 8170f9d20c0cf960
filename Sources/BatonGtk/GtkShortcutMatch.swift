import CGtk

/// Whether GTK would take a key press as a shortcut: a shortcut of a `GtkShortcutController`
/// on the widget or one of its ancestors up to its window (the window's own key bindings, the
/// application's accelerators — the menu bar's — and `GtkShortcuts`) whose trigger matches the
/// key. `GtkInput` asks it for a Control key no view took as a key equivalent: one GTK would
/// not take goes to the first responder as a `keyDown`, as in AppKit, where a key equivalent
/// nobody performs is sent on as a key-down.
@MainActor
enum GtkShortcutMatch {
    /// Whether a shortcut on `widget` or above matches `event` (a `GdkEvent *` key press).
    static func matches(_ event: OpaquePointer, from widget: UnsafeMutablePointer<GtkWidget>) -> Bool {
        var current: UnsafeMutablePointer<GtkWidget>? = widget
        while let each = current {
            if controllers(of: each, match: event) { return true }
            current = gtk_widget_get_parent(each)
        }
        return false
    }

    /// Whether a shortcut controller of `widget` has a shortcut matching `event`.
    private static func controllers(of widget: UnsafeMutablePointer<GtkWidget>, match event: OpaquePointer) -> Bool {
        let controllers = gtk_widget_observe_controllers(widget)
        defer { g_object_unref(UnsafeMutableRawPointer(controllers)) }
        let shortcutType = gtk_shortcut_controller_get_type()
        for index in 0..<g_list_model_get_n_items(controllers) {
            guard let controller = g_list_model_get_item(controllers, index) else { continue }
            defer { g_object_unref(controller) }
            let instance = controller.assumingMemoryBound(to: GTypeInstance.self)
            guard g_type_check_instance_is_a(instance, shortcutType) != 0 else { continue }
            let shortcuts = OpaquePointer(controller)  // a GtkShortcutController is a GListModel of GtkShortcut
            for position in 0..<g_list_model_get_n_items(shortcuts) {
                guard let shortcut = g_list_model_get_item(shortcuts, position) else { continue }
                defer { g_object_unref(shortcut) }
                guard let trigger = gtk_shortcut_get_trigger(OpaquePointer(shortcut)) else { continue }
                if gtk_shortcut_trigger_trigger(trigger, event, 0) != GDK_KEY_MATCH_NONE { return true }
            }
        }
        return false
    }
}
