import Baton
import CGtk

/// Keyboard shortcuts of a widget (a `GtkShortcutController` on it) that activate named GTK
/// actions, such as the ones `GtkActions` adds: `"<Control>s"` → `"win.save"`.
///
/// The controller runs in GTK's capture phase, so a shortcut is seen before the focused widget
/// handles the key, as AppKit offers a key equivalent to the menus before `keyDown(with:)`
/// reaches the first responder. A shortcut whose action is disabled or missing lets the key
/// through.
@MainActor
public final class GtkShortcuts {
    /// The widget the controller is on; nil once `detach()` has run.
    private var widget: UnsafeMutablePointer<GtkWidget>?
    private let controller: OpaquePointer

    /// Puts a new shortcut controller on `widget` (usually a window).
    public init(on widget: UnsafeMutablePointer<GtkWidget>) {
        self.widget = widget
        controller = baton_gtk_shortcut_controller_new(GTK_PHASE_CAPTURE)
        g_object_ref(UnsafeMutableRawPointer(controller))  // ours, beside the widget's
        gtk_widget_add_controller(widget, controller)
    }

    isolated deinit {
        detach()
        g_object_unref(UnsafeMutableRawPointer(controller))
    }

    /// Adds a shortcut: when `trigger` (GTK's accelerator syntax, `"<Control>s"`,
    /// `"<Control><Shift>z"`) is pressed while the focus is in the widget, the action named
    /// `detailedActionName` (`"win.save"`) is activated.
    ///
    /// - Throws: `GtkShortcutError.unparsableTrigger` when GTK cannot parse `trigger`.
    public func add(_ trigger: String, activating detailedActionName: String) throws(GtkShortcutError) {
        guard let parsed = gtk_shortcut_trigger_parse_string(trigger) else { throw .unparsableTrigger(trigger) }
        let action = gtk_named_action_new(detailedActionName)
        let shortcut = gtk_shortcut_new(parsed, action)  // takes both
        gtk_shortcut_controller_add_shortcut(controller, shortcut)  // takes the shortcut
    }

    /// Takes the controller off the widget: no shortcut of it works any more.
    public func detach() {
        guard let widget else { return }
        self.widget = nil
        gtk_widget_remove_controller(widget, controller)
    }
}

/// Why a shortcut could not be added.
public enum GtkShortcutError: Error, Equatable, Sendable {
    /// GTK's parser does not understand the trigger string.
    case unparsableTrigger(String)
}
