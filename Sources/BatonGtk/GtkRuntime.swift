import Baton
import CGtk

/// GTK itself, for apps that use BatonGtk's windows without a `GtkApplication` (which
/// initialises GTK when it starts).
@MainActor
public enum GtkRuntime {
    /// Initialises GTK on the main thread and opens the default display (`gtk_init_check`).
    /// Call it once, before making any `GtkBackedWindow`; a second call does nothing. GTK's
    /// event sources attach to GLib's default main context, which is the loop Baton runs
    /// (`Application.run()`), so GTK's events and Baton's work share one loop. Baton's page in
    /// GTK's Inspector (`GtkInspectorPage`) is registered first, before the Inspector can open.
    ///
    /// - Throws: `GtkRuntimeError.noDisplay` when no display can be opened (no `DISPLAY` or
    ///   `WAYLAND_DISPLAY`, or the server refused).
    public static func initialize() throws(GtkRuntimeError) {
        if isInitialized { return }
        GtkInspectorPage.register()  // before GTK starts: GTK_DEBUG=interactive opens the Inspector in gtk_init
        guard gtk_init_check() != 0 else { throw .noDisplay }
        initializedHere = true
    }

    /// Whether `initialize()` succeeded (or GTK was initialised by a `GtkApplication`).
    public static var isInitialized: Bool { initializedHere || gtk_is_initialized() != 0 }
    private static var initializedHere = false
}

/// Why GTK could not start.
public enum GtkRuntimeError: Error, Equatable, Sendable {
    /// No display could be opened (`gtk_init_check` failed).
    case noDisplay
}
