import BatonGtk
import Foundation

// Placeholder scenario runner; scenarios are added in GtkScenarios.swift.
MainActor.assumeIsolated {
    do { try GtkRuntime.initialize() } catch { print("FAIL no display"); exit(2) }
    Application.shared.finishLaunching()
    let first = GtkBackedWindow(title: "A")
    let second = GtkBackedWindow(title: "B")
    first.makeKeyAndOrderFront(nil)
    _ = MainLoop.run(until: { gtk_window_is_active(first.gtkWindow!) != 0 }, timeout: .seconds(5))
    print("A active \(gtk_window_is_active(first.gtkWindow!)) key=\(Application.shared.keyWindow?.title ?? "-")")
    second.makeKeyAndOrderFront(nil)
    _ = MainLoop.run(until: { gtk_window_is_active(second.gtkWindow!) != 0 }, timeout: .seconds(5))
    print("B active \(gtk_window_is_active(second.gtkWindow!)) A \(gtk_window_is_active(first.gtkWindow!)) key=\(Application.shared.keyWindow?.title ?? "-")")
}
