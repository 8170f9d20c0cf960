import BatonGtk
import Foundation

/// GTK's own Inspector opened in the app (`gtk_window_set_interactive_debugging`, as
/// Ctrl+Shift+I does): Baton's page is among its pages, shows the key window's responder chain
/// and the current activity, follows a change of first responder while it is shown, does not
/// while it is hidden (and is current again as soon as it is shown), and shows the key and the
/// main window's chains when a panel is key. With `GTK_PROBE_PICTURE` set, a PNG of the
/// Inspector showing the page is saved there.
@MainActor func inspectorScenario() {
    let menu = Menu(title: "Main"), file = Menu(title: "File")
    let fileItem = MenuItem(title: "File", action: nil, keyEquivalent: "")
    fileItem.submenu = file
    menu.addItem(fileItem)
    file.addItem(withTitle: "Save", action: .save, keyEquivalent: "s")
    file.addItem(withTitle: "Mark", action: .mark, keyEquivalent: "M")
    Application.shared.mainMenu = menu
    let one = NoteView("one", activity: "note.one"), two = NoteView("two", activity: "note.two")
    one.userActivity?.title = "Shopping list"
    let windowA = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [one, two])
    let windowB = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "B", notes: [PlainView("b")])
    windowB.orderFront(nil)
    windowA.makeFirstResponder(one)
    windowA.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(windowA.gtkWindow!) != 0 }

    gtk_window_set_interactive_debugging(1)
    var inspector: UnsafeMutablePointer<GtkWidget>?
    wait("Inspector open") {
        inspector = toplevels().first { typeName($0) == "GtkInspectorWindow" }
        return inspector.map { gtk_widget_get_mapped($0) != 0 } ?? false
    }
    guard let inspector, let page = descendants(of: inspector).first(where: { typeName($0) == GtkInspectorPage.typeName }),
          let stack = gtk_widget_get_parent(page) else {
        print("FAIL no Baton page in the Inspector")
        return
    }
    let stackPage = gtk_stack_get_page(OpaquePointer(stack), page)
    print("CHECK page title=\(gtk_stack_page_get_title(stackPage).map { String(cString: $0) } ?? "-") name=\(gtk_stack_page_get_name(stackPage).map { String(cString: $0) } ?? "-")")
    print("CHECK page mapped before shown=\(gtk_widget_get_mapped(page) != 0)")
    gtk_window_set_default_size(baton_gtk_window(UnsafeMutableRawPointer(inspector)), 1000, 720)
    gtk_stack_set_visible_child_name(OpaquePointer(stack), GtkInspectorPage.name)
    wait("page shown") { gtk_widget_get_mapped(page) != 0 }
    // The Inspector is a window of its own, on a display connection of its own: let it take
    // the focus (after any request of its own to take it, which comes first on its connection),
    // then give the focus back to A. The app is not active while the Inspector has the focus:
    // the page shows the front window's chain.
    gtk_window_present(baton_gtk_window(UnsafeMutableRawPointer(inspector)))
    wait("Inspector active") { gtk_window_is_active(baton_gtk_window(UnsafeMutableRawPointer(inspector))) != 0 }
    wait("page shows the front window") { headings(on: page).contains { $0.hasPrefix("Responder chain of the front window") } }
    print("CHECK inactive chain=\(section("Responder chain of the front window", on: page).first ?? "-")")
    gtk_window_present(windowA.gtkWindow!)
    wait("A key") { windowA.isKeyWindow && Application.shared.currentUserActivity === one.userActivity }

    wait("page shows one") { chain(on: page).first == "→ NoteView 'one'  userActivity note.one (current)" }
    print("CHECK shown chain=\(chain(on: page).joined(separator: " | "))")
    print("CHECK shown activity=\(section("Current activity", on: page).prefix(3).joined(separator: " | "))")

    windowA.makeFirstResponder(two)
    wait("page follows two") { chain(on: page).first == "→ NoteView 'two'  userActivity note.two (current)" }
    print("CHECK followed chain=\(chain(on: page).first ?? "-")")

    // Hidden, the page follows nothing; shown again, it is current at once.
    let other = descendantsInStack(stack).first { $0 != page }!
    gtk_stack_set_visible_child(OpaquePointer(stack), other)
    wait("page hidden") { gtk_widget_get_mapped(page) == 0 }
    windowA.makeFirstResponder(one)
    drainIdle()
    print("CHECK hidden chain=\(chain(on: page).first ?? "-")")
    gtk_stack_set_visible_child(OpaquePointer(stack), page)
    wait("page shown again") { gtk_widget_get_mapped(page) != 0 }
    print("CHECK shown again chain=\(chain(on: page).first ?? "-")")

    // A panel key, the document main: both chains.
    let find = PlainView("find")
    let panel = makeWindow({ GtkBackedPanel(gtkWindow: $0) }, title: "Find", notes: [find])
    gtk_window_set_transient_for(panel.gtkWindow!, windowA.gtkWindow!)
    panel.makeFirstResponder(find)
    panel.makeKeyAndOrderFront(nil)
    wait("Find key") { panel.isKeyWindow }
    wait("page shows two chains") { headings(on: page).filter { $0.hasPrefix("Responder chain") }.count == 2 }
    print("CHECK headings=\(headings(on: page).joined(separator: " | "))")
    // Actions sent to no target: the key panel's chain handles neither, the main window's does.
    one.canSave = false
    Application.shared.setWindowsNeedUpdate(true)
    wait("page shows save disabled") { section("Menu actions", on: page).first?.contains("disabled") == true }
    print("CHECK actions=\(section("Menu actions", on: page).joined(separator: " | "))")
    // Another device offers an activity here (as the continuity layer reports it).
    Application.shared.updateNearbyActivities([
        NearbyActivity(device: "desk", sequence: 1, activityType: "note.one", title: "Groceries", appID: "org.example.notes",
                       teamIdentifier: "TEAM1", webpageURL: nil),
    ])
    wait("page shows the nearby activity") { !section("Offered here", on: page).isEmpty }
    print("CHECK nearby=\(section("Offered here", on: page).joined(separator: " | "))")
    // A continuation, live: this app has no manifest, so it fails after willContinue.
    Application.shared.continueUserActivity(ofType: "note.one", title: "Groceries", from: .init(deviceName: "desk")) { Data() }
    wait("page shows the continuation") { section("Continuations", on: page).count >= 4 }
    let stepTimes = #"[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9][0-9][0-9]"#
    print("CHECK continuation=\(section("Continuations", on: page).map { $0.replacingOccurrences(of: stepTimes, with: "T", options: .regularExpression) }.joined(separator: " | "))")

    if let path = ProcessInfo.processInfo.environment["GTK_PROBE_PICTURE"] {
        showWholePage(page, in: inspector)
        savePicture(of: inspector, to: path)
    }

    Application.shared.updateNearbyActivities([])
    gtk_window_destroy(baton_gtk_window(UnsafeMutableRawPointer(inspector)))
    panel.close()
    windowA.close()
    windowB.close()
}

/// GTK's toplevel windows, the Inspector's among them.
@MainActor private func toplevels() -> [UnsafeMutablePointer<GtkWidget>] {
    let list = gtk_window_get_toplevels()
    return (0..<g_list_model_get_n_items(list)).compactMap { index in
        guard let item = g_list_model_get_item(list, index) else { return nil }
        g_object_unref(item)
        return item.assumingMemoryBound(to: GtkWidget.self)
    }
}

@MainActor private func typeName(_ widget: UnsafeMutablePointer<GtkWidget>) -> String {
    String(cString: g_type_name(widget.withMemoryRebound(to: GTypeInstance.self, capacity: 1) { $0.pointee.g_class.pointee.g_type }))
}

/// Every widget under `widget`, depth first, in order.
@MainActor private func descendants(of widget: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
    var found: [UnsafeMutablePointer<GtkWidget>] = []
    var child = gtk_widget_get_first_child(widget)
    while let current = child {
        found.append(current)
        found += descendants(of: current)
        child = gtk_widget_get_next_sibling(current)
    }
    return found
}

/// The stack's pages' children.
@MainActor private func descendantsInStack(_ stack: UnsafeMutablePointer<GtkWidget>) -> [UnsafeMutablePointer<GtkWidget>] {
    var found: [UnsafeMutablePointer<GtkWidget>] = []
    var child = gtk_widget_get_first_child(stack)
    while let current = child {
        found.append(current)
        child = gtk_widget_get_next_sibling(current)
    }
    return found
}

/// The page's sections as it shows them: its labels after the introduction, a heading then a body.
@MainActor private func sections(on page: UnsafeMutablePointer<GtkWidget>) -> [(heading: String, lines: [String])] {
    let labels = descendants(of: page).filter { g_type_check_instance_is_a(
        UnsafeMutableRawPointer($0).assumingMemoryBound(to: GTypeInstance.self), gtk_label_get_type()) != 0 }
    let texts = labels.dropFirst().map { String(cString: gtk_label_get_text(OpaquePointer($0))) }
    return stride(from: 0, to: texts.count - 1, by: 2).map { index in
        (texts[index], texts[index + 1].split(separator: "\n").map(String.init))
    }
}

@MainActor private func headings(on page: UnsafeMutablePointer<GtkWidget>) -> [String] { sections(on: page).map(\.heading) }

@MainActor private func section(_ heading: String, on page: UnsafeMutablePointer<GtkWidget>) -> [String] {
    sections(on: page).first { $0.heading.hasPrefix(heading) }?.lines ?? []
}

/// The key window's chain on the page.
@MainActor private func chain(on page: UnsafeMutablePointer<GtkWidget>) -> [String] {
    section("Responder chain of the key", on: page)
}

/// Makes the Inspector's window tall enough that `page` shows all its sections without
/// scrolling (the continuations, last, included), for the picture.
@MainActor private func showWholePage(_ page: UnsafeMutablePointer<GtkWidget>, in window: UnsafeMutablePointer<GtkWidget>) {
    guard let scroller = descendants(of: page).first(where: { typeName($0) == "GtkScrolledWindow" }),
          let content = gtk_scrolled_window_get_child(OpaquePointer(scroller)) else { return print("FAIL no scrolled content on the page") }
    var natural: Int32 = 0
    gtk_widget_measure(content, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width(scroller), nil, &natural, nil, nil)
    let missing = natural - gtk_widget_get_height(scroller)
    guard missing > 0 else { return }
    // The default size counts the window's shadow too: grow it by what the page misses.
    var width: Int32 = 0, height: Int32 = 0
    gtk_window_get_default_size(baton_gtk_window(UnsafeMutableRawPointer(window)), &width, &height)
    gtk_window_set_default_size(baton_gtk_window(UnsafeMutableRawPointer(window)), width, height + missing)
    wait("Inspector as tall as its page") { gtk_widget_get_height(scroller) >= natural }
}

/// Saves what GTK draws for `window` as a PNG at `path`, after its next paint (GTK's own
/// rendering: `gtk_widget_paintable_new`, the window's renderer, `gdk_texture_save_to_png`).
@MainActor private func savePicture(of window: UnsafeMutablePointer<GtkWidget>, to path: String) {
    let paintable = gtk_widget_paintable_new(window)
    defer { g_object_unref(UnsafeMutableRawPointer(paintable)) }
    var painted = false
    if let clock = gtk_widget_get_frame_clock(window) {
        GtkSignal.once(UnsafeMutableRawPointer(clock), "after-paint") { painted = true }
        gtk_widget_queue_draw(window)
        wait("Inspector painted") { painted }
    }
    let width = gtk_widget_get_width(window), height = gtk_widget_get_height(window)
    guard width > 0, height > 0, let renderer = gtk_native_get_renderer(OpaquePointer(window)) else {
        print("FAIL the Inspector has not been drawn")
        return
    }
    let snapshot = gtk_snapshot_new()!
    gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
    var drawn = gtk_snapshot_free_to_node(snapshot)
    if drawn == nil {
        // The paintable keeps no node of a window on another display: draw the window anew
        // (its class's `snapshot`, which draws each child).
        let again = gtk_snapshot_new()!
        let widgetClass = UnsafeMutableRawPointer(window).assumingMemoryBound(to: GTypeInstance.self).pointee.g_class!
        UnsafeMutableRawPointer(widgetClass).assumingMemoryBound(to: GtkWidgetClass.self).pointee.snapshot?(window, again)
        drawn = gtk_snapshot_free_to_node(again)
        print("NOTE picture drawn anew: \(drawn != nil)")
    }
    guard let node = drawn else { print("FAIL no picture"); return }
    defer { gsk_render_node_unref(node) }
    var bounds = graphene_rect_t()
    graphene_rect_init(&bounds, 0, 0, Float(width), Float(height))
    guard let texture = gsk_renderer_render_texture(renderer, node, &bounds) else { print("FAIL no texture"); return }
    defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
    print("CHECK picture saved=\(gdk_texture_save_to_png(texture, path) != 0) size=\(width)x\(height)")
}
