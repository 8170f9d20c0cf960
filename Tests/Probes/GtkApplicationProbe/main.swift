// A BatonGtk app for GtkApplicationTests: it prints what Baton's application sees under
// GtkApplicationMain, one line each.
//
//     GtkApplicationProbe [FILE…]
//
// Launch messages and opened files are printed; once launched, the main queue, a main-actor
// Task, MainLoop.idle and MainLoop.after each print that they ran. Opening a file named `quit`
// terminates: the delegate refuses the first terminate(_:), answers the second with
// .terminateLater and agrees a moment later. Opening `gquit` quits the GApplication directly
// (g_application_quit, as other GTK code might), without Baton's terminate(_:). After
// GtkApplicationMain returns it prints the status and exits with it.
import BatonGtk

final class ProbeDelegate: ApplicationDelegate {
    private var terminateRequests = 0

    func applicationWillFinishLaunching(_ notification: Notification) { say("willFinishLaunching") }

    func applicationDidFinishLaunching(_ notification: Notification) {
        let host = GtkApplicationHost.current
        say("didFinishLaunching primary=\(host?.isPrimary ?? false) id=\(host?.applicationID ?? "-")")
        if let pages = inspectorPageTitles() { say("inspector pages: \(pages.joined(separator: ", "))") }
        DispatchQueue.main.async { say("main queue ran") }
        Task { @MainActor in say("main-actor task ran") }
        MainLoop.idle { say("idle ran") }
        MainLoop.after(.milliseconds(10)) { say("timer ran") }
        say("loop iterated=\(MainLoop.isIterated) executor=\(MainLoop.mainActorExecutor)")
        // A main-actor job queued from another thread, while GApplication iterates the loop.
        Thread.detachNewThread {
            Task { @MainActor in say("main-actor task from another thread ran, loop iterated=\(MainLoop.isIterated)") }
        }
    }

    func application(_ application: Application, open urls: [URL]) {
        let later = GtkApplicationHost.current?.laterActivations ?? -1
        say("open \(urls.map(\.lastPathComponent).joined(separator: " ")) after \(later) later activation(s)")
        if urls.contains(where: { $0.lastPathComponent == "gquit" }), let host = GtkApplicationHost.current {
            g_application_quit(host.gApplication)
        }
        if urls.contains(where: { $0.lastPathComponent == "quit" }) {
            Application.shared.terminate(nil)
            say("still running after the refused terminate")
            Application.shared.terminate(nil)
        }
    }

    func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply {
        terminateRequests += 1
        if terminateRequests == 1 {
            say("applicationShouldTerminate: cancel")
            return .terminateCancel
        }
        say("applicationShouldTerminate: later")
        MainLoop.after(.milliseconds(20)) { Application.shared.reply(toApplicationShouldTerminate: true) }
        return .terminateLater
    }

    func applicationWillTerminate(_ notification: Notification) { say("willTerminate") }
}

/// The titles of the pages of GTK's Inspector when it is open (with `GTK_DEBUG=interactive`,
/// GTK opens it as it starts), or nil.
@MainActor func inspectorPageTitles() -> [String]? {
    let toplevels = gtk_window_get_toplevels()
    for index in 0..<g_list_model_get_n_items(toplevels) {
        guard let item = g_list_model_get_item(toplevels, index) else { continue }
        g_object_unref(item)
        let typeName = String(cString: g_type_name(item.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class.pointee.g_type))
        guard typeName == "GtkInspectorWindow" else { continue }
        var titles: [String] = []
        var pending = [item.assumingMemoryBound(to: GtkWidget.self)]
        while let widget = pending.popLast() {
            if let parent = gtk_widget_get_parent(widget),
               g_type_check_instance_is_a(UnsafeMutableRawPointer(parent).assumingMemoryBound(to: GTypeInstance.self), gtk_stack_get_type()) != 0,
               let title = gtk_stack_page_get_title(gtk_stack_get_page(OpaquePointer(parent), widget)) {
                titles.append(String(cString: title))
            }
            var child = gtk_widget_get_first_child(widget)
            while let current = child {
                pending.append(current)
                child = gtk_widget_get_next_sibling(current)
            }
        }
        return titles
    }
    return nil
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

Application.shared.manifest = AppManifest(appID: "org.baton.GtkApplicationProbe", teamIdentifier: "TEAM")
let files = CommandLine.arguments.dropFirst().map { URL(fileURLWithPath: $0) }
let status = GtkApplicationMain(delegate: ProbeDelegate(), openingFiles: files)
say("GtkApplicationMain returned \(status)")
exit(status)
