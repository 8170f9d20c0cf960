#if canImport(BatonGtk)
import BatonGtk
import Foundation

/// The GTK figure (issue 13): a focus change in GTK until the activity of the newly focused
/// text view is current in Baton, beside a bare GTK focus change and a plain
/// `notify::focus-widget` handler on the same loop.
///
/// GTK needs a display: the bench starts its own Xvfb (`-displayfd`, a free display number)
/// and runs the measurement in a child (`BatonBench --gtk-mode`), so the bench's own process
/// never connects to a display. Without Xvfb the figure is skipped, saying why.
enum GtkBenchmarks {
    static let switches = 2_000

    /// Parent side: the figure, or nil (and a line saying why) when it cannot be measured.
    @MainActor
    static func figure() -> Figure? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") else {
            say("GTK figure skipped: no /usr/bin/Xvfb (Debian package xvfb)")
            return nil
        }
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("baton-bench-gtk-\(getpid())")
        try? FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        do {
            let server = try BenchChild("Xvfb", executable: URL(fileURLWithPath: "/usr/bin/Xvfb"),
                                        ["-displayfd", "1", "-nolisten", "tcp", "-noreset", "-screen", "0", "1280x800x24"],
                                        environment: ProcessInfo.processInfo.environment, logDirectory: logs)
            defer { server.stop() }
            let number = try server.waitForLine("", timeout: .seconds(30)).trimmingCharacters(in: .whitespaces)
            var environment = ProcessInfo.processInfo.environment
            for (key, value) in ["DISPLAY": ":\(number)", "GDK_BACKEND": "x11", "WAYLAND_DISPLAY": "", "GSK_RENDERER": "cairo",
                                 "GTK_A11Y": "none", "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "memory"] {
                environment[key] = value
            }
            let child = try BenchChild("gtk", executable: URL(fileURLWithPath: CommandLine.arguments[0]), ["--gtk-mode"],
                                       environment: environment, logDirectory: logs)
            defer { child.stop() }
            let line = try child.waitForLine("GTK ", timeout: .seconds(120))
            let values = line.split(separator: " ").dropFirst().compactMap { Double($0) }
            guard values.count == 2 else { throw BenchFailure("gtk mode said \(line)") }
            return Figure(name: "GTK focus change → activity current", value: values[0] / 1000,
                          baselineName: "bare GTK focus change + handler", baseline: values[1] / 1000, unit: "µs",
                          aim: "aim ≤ 1.5×")
        } catch {
            say("GTK figure failed: \(error)")
            return nil
        }
    }

    /// Child side (`--gtk-mode`): prints `GTK <baton ns/switch> <bare ns/switch>`, medians of 5
    /// runs of `switches` focus changes each, then exits.
    @MainActor
    static func runMode() -> Never {
        do { try GtkRuntime.initialize() } catch {
            say("GTK no display")
            exit(2)
        }
        Application.shared.finishLaunching()

        // Baton: a GtkBackedWindow, two text views wrapped by WidgetViews that own activities.
        let batonGtk = window()
        let first = NoteView(), second = NoteView()
        append(first.widget, second.widget, to: batonGtk)
        let baton = GtkBackedWindow(gtkWindow: batonGtk, title: "Baton")
        let content = View()
        content.addSubview(first)
        content.addSubview(second)
        baton.contentView = content
        baton.makeKeyAndOrderFront(nil)
        waitUntilActive(batonGtk)
        let batonNanos = median {
            measure { index in
                let view = index % 2 == 0 ? second : first
                gtk_widget_grab_focus(view.widget)
                return Application.shared.currentUserActivity === view.userActivity
            }
        }
        baton.close()

        // Bare: a plain GtkWindow, the same two text views, and a handler that records the focus.
        let bare = window()
        let one = gtk_text_view_new()!, two = gtk_text_view_new()!
        append(one, two, to: bare)
        let handler = g_signal_connect_data(UnsafeMutableRawPointer(bare), "notify::focus-widget",
                                            unsafeBitCast(bareFocusHandler, to: GCallback.self), nil, nil, GConnectFlags(0))
        gtk_window_present(bare)
        waitUntilActive(bare)
        gtk_window_present(bare)
        waitUntilActive(bare)
        let bareNanos = median {
            measure { index in
                let widget = index % 2 == 0 ? two : one
                gtk_widget_grab_focus(widget)
                return bareFocused == UnsafeMutableRawPointer(widget)
            }
        }
        g_signal_handler_disconnect(UnsafeMutableRawPointer(bare), handler)
        gtk_window_destroy(bare)
        say("GTK \(batonNanos) \(bareNanos)")
        exit(0)
    }

    /// Nanoseconds per focus change over `switches` changes; each must have reached its end.
    @MainActor
    private static func measure(_ change: (Int) -> Bool) -> Double {
        var misses = 0
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for index in 0..<switches where !change(index) { misses += 1 }
        }
        if misses > 0 { say("GTK figure: \(misses) focus changes did not arrive") }
        return nanosPerOp(elapsed, switches)
    }

    @MainActor
    private static func window() -> UnsafeMutablePointer<GtkWindow> {
        let window = baton_gtk_window(UnsafeMutableRawPointer(gtk_window_new()))!
        gtk_window_set_default_size(window, 400, 300)
        return window
    }

    @MainActor
    private static func append(_ a: UnsafeMutablePointer<GtkWidget>, _ b: UnsafeMutablePointer<GtkWidget>,
                               to window: UnsafeMutablePointer<GtkWindow>) {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
        let asBox = UnsafeMutableRawPointer(box).assumingMemoryBound(to: GtkBox.self)
        gtk_box_append(asBox, a)
        gtk_box_append(asBox, b)
        gtk_window_set_child(window, box)
    }

    @MainActor
    private static func waitUntilActive(_ window: UnsafeMutablePointer<GtkWindow>) {
        if !MainLoop.run(until: { gtk_window_is_active(window) != 0 }, timeout: .seconds(20)) {
            say("GTK figure: the window did not become active")
        }
    }

    /// A text view's `WidgetView` owning an activity.
    @MainActor
    private final class NoteView: WidgetView {
        init() {
            super.init(widget: gtk_text_view_new()!)
            userActivity = UserActivity(activityType: "com.example.bench.note")
        }
    }
}

/// What the bare handler saw last: the focus widget.
nonisolated(unsafe) private var bareFocused: UnsafeMutableRawPointer?

/// `notify::focus-widget`, bare: records the window's focus widget.
private let bareFocusHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { window, _, _ in
    bareFocused = gtk_window_get_focus(baton_gtk_window(window)).map { UnsafeMutableRawPointer($0) }
}
#endif
