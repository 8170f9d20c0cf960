import BatonGtk
import Foundation

// GtkProbe <scenario>: BatonGtk on a real GTK 4 under the display in DISPLAY (the tests start a
// virtual one). Prints `STATE …`, `ACTION …` and `CHECK …` lines the tests assert on, then
// `DONE`. gtk_init is once per process, so each scenario runs in a process of its own.
MainActor.assumeIsolated {
    let scenario = CommandLine.arguments.dropFirst().first ?? ""
    do { try GtkRuntime.initialize() } catch {
        print("FAIL no display: \(error)")
        exit(2)
    }
    Application.shared.finishLaunching()
    _ = MainLoop.run(until: { true }, timeout: .zero)  // the main-queue bridge, which lives as long as the process
    drainIdle()  // the windows' update launching scheduled
    let boxesBefore = LoopDiagnostics.liveCallbackBoxes
    switch scenario {
    case "focus": focusScenario()
    case "switch": switchScenario()
    case "dialog": dialogScenario()
    case "shortcut": shortcutScenario()
    case "close": closeScenario()
    case "visibility": visibilityScenario()
    case "validation": validationScenario()
    case "hide": hideScenario()
    case "events": eventsScenario()
    case "menubar": menuBarScenario()
    case "inspector": inspectorScenario()
    default:
        print("FAIL unknown scenario '\(scenario)'")
        exit(2)
    }
    // Every window is closed and released by now: each signal handler, source and box with it.
    drainIdle()
    print("CHECK boxes before=\(boxesBefore) after=\(LoopDiagnostics.liveCallbackBoxes)")
    print("CHECK gtk toplevels=\(g_list_model_get_n_items(gtk_window_get_toplevels())) baton windows=\(Application.shared.windows.count)")
    print("DONE")
}

/// Clicking into a text view makes its view first responder and its activity current; a view
/// that refuses keeps Baton's first responder where Baton put it, and GTK's focus follows.
@MainActor func focusScenario() {
    let one = NoteView("one", activity: "note.one"), two = NoteView("two", activity: "note.two")
    let refusing = NoteView("refusing", activity: "note.refusing")
    refusing.accepts = false
    let window = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [one, two, refusing])
    window.makeKeyAndOrderFront(nil)
    wait("A active") { window.gtkWindow.map { gtk_window_is_active($0) != 0 } ?? false }
    report("shown")
    RealInput.click(one.widget, in: window.gtkWindow!)
    wait("one first") { window.firstResponder === one }
    report("clicked one")
    RealInput.click(two.widget, in: window.gtkWindow!)
    wait("two first") { window.firstResponder === two }
    report("clicked two")
    print("CHECK gtkFocus=\(gtkFocus(window, [one, two, refusing]))")
    RealInput.click(refusing.widget, in: window.gtkWindow!)
    wait("refusal handled") { window.firstResponder !== two }
    report("clicked refusing")
    print("CHECK gtkFocus=\(gtkFocus(window, [one, two, refusing]))")
    // Baton to GTK: making a view first responder in code moves GTK's focus.
    window.makeFirstResponder(one)
    report("made one first in code")
    print("CHECK gtkFocus=\(gtkFocus(window, [one, two, refusing]))")
    window.close()
}

/// GTK activating another window (what a window manager does when the person clicks it; with
/// no window manager on the virtual display, the probe asks GTK to present it) makes it key and
/// main, and its first responder's activity current.
@MainActor func switchScenario() {
    let (windowA, windowB) = twoNoteWindows(keyingB: false)
    report("A shown")
    gtk_window_present(windowB.gtkWindow!)
    wait("B key") { windowB.isKeyWindow }
    report("GTK activated B")
    gtk_window_present(windowA.gtkWindow!)
    wait("A key") { windowA.isKeyWindow }
    report("GTK activated A")
    windowA.close()
    windowB.close()
}

/// A panel (a GTK dialog, transient for the document window) takes key but not main: the
/// document's activity stays current. Closing it through GTK gives key back.
@MainActor func dialogScenario() {
    let a = NoteView("a", activity: "note.a"), find = NoteView("find", activity: nil)
    let document = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [a])
    document.makeFirstResponder(a)
    let panel = makeWindow({ GtkBackedPanel(gtkWindow: $0) }, title: "Find", notes: [find])
    gtk_window_set_transient_for(panel.gtkWindow!, document.gtkWindow!)
    gtk_window_set_modal(panel.gtkWindow!, 1)
    document.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(document.gtkWindow!) != 0 }
    report("document shown")
    panel.makeKeyAndOrderFront(nil)
    wait("Find active") { gtk_window_is_active(panel.gtkWindow!) != 0 }
    report("dialog shown")
    RealInput.click(find.widget, in: panel.gtkWindow!)
    wait("find first") { panel.firstResponder === find }
    report("clicked into dialog")
    gtk_window_close(panel.gtkWindow!)  // as the dialog's close button: close-request
    wait("dialog closed") { panel.isClosed && gtk_window_is_active(document.gtkWindow!) != 0 }
    report("dialog closed")
    document.close()
}

/// A real Control+S, typed on the X server, reaches the first responder's `save(_:)` through
/// the window's shortcut, its `win.save` GAction and `sendAction(_:to:from:)`.
@MainActor func shortcutScenario() {
    let one = NoteView("one", activity: "note.one"), two = NoteView("two", activity: "note.two")
    let window = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [one, two])
    do { try window.addAction(.save, named: "save", shortcut: "<Control>s") } catch { print("FAIL \(error)") }
    window.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(window.gtkWindow!) != 0 }
    RealInput.click(two.widget, in: window.gtkWindow!)
    wait("two first") { window.firstResponder === two }
    RealInput.pressWithControl(0x73)
    wait("saved") { two.saves == 1 }
    RealInput.click(one.widget, in: window.gtkWindow!)
    wait("one first") { window.firstResponder === one }
    RealInput.pressWithControl(0x73)
    wait("saved") { one.saves == 1 }
    print("CHECK saves one=\(one.saves) two=\(two.saves)")
    print("CHECK actions=\(window.actions.names)")
    window.close()
}

/// Closing a GTK window (its close button: close-request) closes the Baton window, moves key and
/// main to the next window and invalidates the activity only it held; a delegate that says no
/// keeps the window open on both sides.
@MainActor func closeScenario() {
    final class Refuser: WindowDelegate { func windowShouldClose(_ sender: Window) -> Bool { false } }
    let refuser = Refuser()
    var a: NoteView? = NoteView("a", activity: "note.a")
    let b = NoteView("b", activity: "note.b")
    let activityA = a!.userActivity!
    var windowA: GtkBackedWindow? = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [a!])
    let windowB = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "B", notes: [b])
    windowA!.makeFirstResponder(a)
    windowB.makeFirstResponder(b)
    windowB.makeKeyAndOrderFront(nil)
    windowA!.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(windowA!.gtkWindow!) != 0 }
    report("A front")
    windowA!.delegate = refuser
    gtk_window_close(windowA!.gtkWindow!)
    print("CHECK refused: closed=\(windowA!.isClosed) gtkVisible=\(gtk_widget_get_visible(baton_gtk_widget(UnsafeMutableRawPointer(windowA!.gtkWindow!))) != 0)")
    windowA!.delegate = nil
    gtk_window_close(windowA!.gtkWindow!)
    print("CHECK closed: closed=\(windowA!.isClosed) gtkWindow=\(windowA!.gtkWindow == nil ? "nil" : "kept") windows=\(Application.shared.windows.map(\.title))")
    wait("B active") { gtk_window_is_active(windowB.gtkWindow!) != 0 }
    report("A closed")
    windowA = nil
    a = nil
    print("CHECK activity A valid=\(activityA.isValid)")
    windowB.close()
}


/// Showing, hiding and the title, from either side.
@MainActor func visibilityScenario() {
    let (windowA, windowB) = twoNoteWindows(keyingB: true)
    let widgetA = baton_gtk_widget(UnsafeMutableRawPointer(windowA.gtkWindow!))!
    report("both shown")
    gtk_widget_set_visible(widgetA, 0)  // GTK hides A
    print("CHECK GTK hid A: batonVisible=\(windowA.isVisible)")
    wait("B active") { gtk_window_is_active(windowB.gtkWindow!) != 0 }
    report("GTK hid A")
    windowA.makeKeyAndOrderFront(nil)  // Baton shows A again
    print("CHECK Baton showed A: gtkVisible=\(gtk_widget_get_visible(widgetA) != 0)")
    wait("A active") { gtk_window_is_active(windowA.gtkWindow!) != 0 }
    report("Baton showed A")
    windowA.orderOut(nil)  // Baton hides A
    print("CHECK Baton hid A: gtkVisible=\(gtk_widget_get_visible(widgetA) != 0)")
    gtk_widget_set_visible(widgetA, 1)  // GTK shows A
    print("CHECK GTK showed A: batonVisible=\(windowA.isVisible)")
    gtk_window_set_title(windowA.gtkWindow!, "A renamed in GTK")
    print("CHECK title from GTK: \(windowA.title)")
    windowA.title = "A renamed in Baton"
    print("CHECK title from Baton: \(String(cString: gtk_window_get_title(windowA.gtkWindow!)))")
    windowA.close()
    windowB.close()
}

/// A window action is enabled only while the focused responder chain can handle it and the
/// handler's validator agrees (AppKit's automatic enabling); a disabled action sends nothing,
/// by shortcut or by activation.
@MainActor func validationScenario() {
    let one = NoteView("one", activity: "note.one"), plain = PlainView("plain")
    let window = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [one, plain])
    do {
        try window.addAction(.save, named: "save", shortcut: "<Control>s")
        try window.addAction(.mark, named: "mark", shortcut: "<Control>m")
    } catch { print("FAIL \(error)") }
    let save = window.actions.gAction(named: "save")!
    func saveEnabled() -> Bool { g_action_get_enabled(save) != 0 }
    window.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(window.gtkWindow!) != 0 }
    RealInput.click(plain.widget, in: window.gtkWindow!)
    wait("plain first") { window.firstResponder === plain }
    wait("save disabled") { !saveEnabled() }
    print("CHECK plain first: save enabled=\(saveEnabled())")
    g_action_activate(save, nil)
    print("CHECK disabled activation: saves=\(one.saves)")
    RealInput.click(one.widget, in: window.gtkWindow!)
    wait("one first") { window.firstResponder === one }
    wait("save enabled") { saveEnabled() }
    print("CHECK one first: save enabled=\(saveEnabled())")
    RealInput.pressWithControl(0x73)
    wait("saved") { one.saves == 1 }
    // The validator changes its mind and nothing updated GTK yet: activation asks again.
    one.canSave = false
    g_action_activate(save, nil)
    print("CHECK stale activation: saves=\(one.saves) enabled=\(saveEnabled())")
    one.canSave = true
    Application.shared.setWindowsNeedUpdate(true)
    wait("save enabled again") { saveEnabled() }
    one.canSave = false
    Application.shared.setWindowsNeedUpdate(true)
    wait("save disabled by the validator") { !saveEnabled() }
    print("CHECK validator said no: save enabled=\(saveEnabled())")
    // A real Control+S while save is disabled, then Control+M: X events arrive in order, so
    // once mark arrived the Control+S was handled, and it sent nothing.
    RealInput.pressWithControl(0x73)
    RealInput.pressWithControl(0x6d)
    wait("marked") { one.marks == 1 }
    print("CHECK disabled shortcut: saves=\(one.saves) marks=\(one.marks)")
    window.close()
}

/// `Application.hide(_:)` takes every GTK window off the screen and `unhide(_:)` brings them
/// back, with key and main where they were (AppKit: a hidden app's windows are not visible,
/// and unhiding activates the app again).
@MainActor func hideScenario() {
    let (windowA, windowB) = twoNoteWindows(keyingB: true)
    report("both shown")
    func gtkVisible(_ window: GtkBackedWindow) -> Bool {
        gtk_widget_get_visible(baton_gtk_widget(UnsafeMutableRawPointer(window.gtkWindow!))) != 0
    }
    func line(_ label: String) -> String {
        "\(label): gtkVisible A=\(gtkVisible(windowA)) B=\(gtkVisible(windowB)) batonVisible A=\(windowA.isVisible) B=\(windowB.isVisible) ordered=\(Application.shared.orderedWindows.map(\.title))"
    }
    Application.shared.hide(nil)
    print("CHECK \(line("hidden"))")
    drainIdle()
    // GTK's own notify::visible must not order the windows out in Baton while the app is hidden.
    print("CHECK \(line("hidden, GTK settled")) hidden=\(Application.shared.isHidden)")
    Application.shared.unhide(nil)
    print("CHECK \(line("unhidden"))")
    wait("A active again") { gtk_window_is_active(windowA.gtkWindow!) != 0 }
    report("unhidden")
    windowA.close()
    windowB.close()
}

/// `Application.mainMenu` as a registered GtkApplication's menu bar (`GtkMenuBar`): the GMenu
/// model has the menus and items, each item's GAction is enabled by the responder chain's
/// validation, key equivalents are accelerators, a real Control+S chooses the Save item (its
/// action reaches the first responder with the item as sender), and a changed title rebuilds
/// the model.
@MainActor func menuBarScenario() {
    // No session bus in this process: GApplication then registers as a plain local instance.
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/baton-gtkprobe-bus", 1)
    let app = gtk_application_new("org.baton.GtkProbe.Menus", G_APPLICATION_NON_UNIQUE)!
    var error: UnsafeMutablePointer<GError>?
    guard g_application_register(UnsafeMutableRawPointer(app).assumingMemoryBound(to: GApplication.self), nil, &error) != 0 else {
        print("FAIL register: \(error.map { String(cString: $0.pointee.message) } ?? "?")")
        return
    }
    let main = Menu(title: "Main")
    let file = Menu(title: "File")
    let fileItem = MenuItem(title: "File", action: nil, keyEquivalent: "")
    fileItem.submenu = file
    main.addItem(fileItem)
    let save = file.addItem(withTitle: "Save", action: .save, keyEquivalent: "s")
    file.addItem(.separator())
    file.addItem(withTitle: "Mark", action: .mark, keyEquivalent: "M").state = .on
    Application.shared.mainMenu = main
    let bar = GtkMenuBar(application: app)
    print("CHECK model \(describeMenuModel(bar.model))")
    let names = bar.accelerators.keys.sorted()
    let markState = g_action_group_get_action_state(OpaquePointer(app), "menu-0-2")
    print("CHECK mark state=\(markState.map { g_variant_get_boolean($0) != 0 ? "on" : "off" } ?? "none")")
    if let markState { g_variant_unref(markState) }
    print("CHECK accelerators \(names.map { "\($0)=\(accels(app, "app.\($0)"))" }.joined(separator: " "))")

    let one = NoteView("one", activity: "note.one"), plain = PlainView("plain")
    let gtk = baton_gtk_window(UnsafeMutableRawPointer(gtk_application_window_new(app)))!
    gtk_application_window_set_show_menubar(UnsafeMutableRawPointer(gtk).assumingMemoryBound(to: GtkApplicationWindow.self), 1)
    let window = makeWindow({ _ in GtkBackedWindow(gtkWindow: gtk) }, title: "A", notes: [one, plain], gtkWindow: gtk)
    let gActions = OpaquePointer(app)
    func saveEnabled() -> Bool { g_action_group_get_action_enabled(gActions, "menu-0-0") != 0 }
    window.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(gtk) != 0 }
    RealInput.click(plain.widget, in: gtk)
    wait("plain first") { window.firstResponder === plain }
    wait("save disabled") { !saveEnabled() }
    print("CHECK plain first: save enabled=\(saveEnabled())")
    RealInput.click(one.widget, in: gtk)
    wait("one first") { window.firstResponder === one }
    wait("save enabled") { saveEnabled() }
    print("CHECK one first: save enabled=\(saveEnabled())")
    one.canSave = false
    Application.shared.setWindowsNeedUpdate(true)
    wait("save disabled by the validator") { !saveEnabled() }
    print("CHECK validator said no: save enabled=\(saveEnabled())")
    one.canSave = true
    Application.shared.setWindowsNeedUpdate(true)
    wait("save enabled again") { saveEnabled() }
    RealInput.pressWithControl(0x73)
    wait("saved") { one.saves == 1 }
    save.title = "Save All"
    wait("rebuilt") { describeMenuModel(bar.model).contains("Save All") }
    print("CHECK rebuilt \(describeMenuModel(bar.model))")
    window.close()
    bar.invalidate()
    Application.shared.mainMenu = nil
    g_object_unref(UnsafeMutableRawPointer(app))
}

/// The accelerators GTK has for `action`, joined by commas.
@MainActor func accels(_ app: UnsafeMutablePointer<GtkApplication>, _ action: String) -> String {
    guard let list = gtk_application_get_accels_for_action(app, action) else { return "" }
    defer { g_strfreev(list) }
    var found: [String] = []
    var index = 0
    while let accel = list[index] { found.append(String(cString: accel)); index += 1 }
    return found.joined(separator: ",")
}

/// A GMenuModel as text: `Title[item(action) | item(action) ; section…]`.
@MainActor func describeMenuModel(_ model: UnsafeMutablePointer<GMenuModel>?) -> String {
    guard let model else { return "-" }
    var parts: [String] = []
    for index in 0..<g_menu_model_get_n_items(model) {
        func attribute(_ name: String) -> String? {
            guard let value = g_menu_model_get_item_attribute_value(model, index, name, nil) else { return nil }
            defer { g_variant_unref(value) }
            return String(cString: g_variant_get_string(value, nil))
        }
        let label = attribute("label") ?? ""
        if let submenu = g_menu_model_get_item_link(model, index, "submenu") {
            parts.append("\(label)[\(describeMenuModel(submenu))]")
            g_object_unref(UnsafeMutableRawPointer(submenu))
        } else if let section = g_menu_model_get_item_link(model, index, "section") {
            parts.append(describeMenuModel(section))
            g_object_unref(UnsafeMutableRawPointer(section))
        } else {
            parts.append("\(label)(\(attribute("action") ?? "-"))")
        }
    }
    return parts.joined(separator: " ; ")
}
