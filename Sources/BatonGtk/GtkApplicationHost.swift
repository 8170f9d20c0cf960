import Baton
import BatonLoop
import CGLib
import CGtk
import Foundation

/// The `GtkApplication` a BatonGtk app runs in, as Baton's `Application`: made and run by
/// `GtkApplicationMain(delegate:openingFiles:)`, which is the way to start one.
///
/// Its application ID is the app manifest's `CFBundleIdentifier` (`AppManifest.appID`), so the
/// desktop entry, the D-Bus name and the app Baton's agent launches are one name. GApplication
/// makes the app single-instance on the session bus: the first process is the primary
/// instance; a later launch (`baton-app FILE`, or D-Bus activation from the desktop entry when
/// it says `DBusActivatable=true`) hands its files or its activation to the primary and ends.
/// Without a session bus every process is a primary of its own.
///
/// How GApplication's signals map to Baton's `Application`, in the primary instance:
/// - `startup` → the menu bar (`menuBar`, showing `Application.mainMenu`), then
///   `Application.finishLaunching()`: the launch messages
///   (`applicationWillFinishLaunching`, `…didFinishLaunching`, their `…WithOptions` forms,
///   `UIApplicationLaunchOptionsUserActivityTypeKey` from the launcher's environment) and
///   `activate()`. The app is held from then on: it runs until Baton's `terminate(_:)`, not
///   until its last GTK window goes (AppKit's rule, with
///   `applicationShouldTerminateAfterLastWindowClosed(_:)` deciding as usual).
/// - `activate` after the first (another launch, a D-Bus `Activate`) → `Application.activate()`
///   and the key (else main, else frontmost) window made key and ordered front.
/// - `open` → the delegate's `application(_:open:)` with the files as file URLs (whose default
///   opens them as documents through `DocumentController`). Deviation: files given at launch
///   arrive after `applicationDidFinishLaunching`, where AppKit sends them between will- and
///   did-finish-launching; GApplication sends `open` after `startup`.
/// - Baton's `terminate(_:)`, once the delegate agreed (`applicationShouldTerminate(_:)`,
///   `.terminateLater` then `reply(toApplicationShouldTerminate:)`), sends
///   `applicationWillTerminate` and quits the GApplication: `GtkApplicationMain` returns.
/// - `shutdown` without Baton's terminate (other code called `g_application_quit`, which
///   cannot be refused) → `applicationWillTerminate` and its notification, without asking the
///   delegate.
///
/// A continuation the agent hands to the app arrives in the primary instance: it is the
/// process that joined the agent (a forwarded launch ends before launching Baton's side, so it
/// never joins). GApplication iterates GLib's default context, which is `MainLoop.context`: the
/// main actor, `DispatchQueue.main`, `MainLoop`'s sources and every GIO callback of Baton's run
/// there, as under `Application.main(delegate:)`, and the loop knows it is iterated
/// (`MainLoop.isIterated`, through `MainLoop.runHosted(_:)`). `Application.isRunning` stays
/// false (Baton's `run()` is not the loop), and `stop(_:)` does nothing: GApplication has no
/// nested run.
@MainActor
public final class GtkApplicationHost {
    /// The host `GtkApplicationMain` is running, while it runs.
    public private(set) static var current: GtkApplicationHost?

    /// The `GtkApplication` (a reference the host holds until `GtkApplicationMain` returns).
    public let gtkApplication: UnsafeMutablePointer<GtkApplication>
    /// The same object as a `GApplication`.
    public var gApplication: UnsafeMutablePointer<GApplication> {
        UnsafeMutableRawPointer(gtkApplication).assumingMemoryBound(to: GApplication.self)
    }
    /// The application ID: the manifest's `CFBundleIdentifier`.
    public let applicationID: String
    /// True in the primary instance once GApplication has registered it (`startup`); false in
    /// a launch that GApplication hands to the primary instance.
    public private(set) var isPrimary = false
    /// How many times `activate` came after launching: other launches and D-Bus `Activate`
    /// calls the primary instance received.
    public private(set) var laterActivations = 0
    /// `Application.mainMenu` as the GtkApplication's menu bar (see `GtkMenuBar`), from
    /// `startup` until the run ends.
    public private(set) var menuBar: GtkMenuBar?

    private var handlers: [gulong] = []
    private var terminationObserver: (any NSObjectProtocol)?
    private var isHeld = false
    /// True once Baton's will-terminate path ran (from `terminate(_:)` or from `shutdown`).
    private var hasTerminated = false
    /// True once the first `activate` or `open` after `startup` came (the launch's own).
    private var launchActivationSeen = false

    /// A host for the app `applicationID`; nil when GLib refuses the ID.
    init?(applicationID: String) {
        guard g_application_id_is_valid(applicationID) != 0,
              let application = gtk_application_new(applicationID, G_APPLICATION_HANDLES_OPEN) else { return nil }
        self.applicationID = applicationID
        gtkApplication = application
        GtkInspectorPage.register()  // before GTK starts (GTK_DEBUG=interactive opens the Inspector then)
        let object = UnsafeMutableRawPointer(application)
        handlers = [
            GtkSignal.connect(object, "startup") { [unowned self] in startup() },
            GtkSignal.connect(object, "activate") { [unowned self] in activated() },
            GtkSignal.connect(object, "shutdown") { [unowned self] in shutdown() },
            baton_gtk_connect(object, "open", unsafeBitCast(openSignalTrampoline, to: GCallback.self),
                              OpenSignalBox { [unowned self] urls in open(urls) }.retainedOpaque(), CallbackBox.closureNotify),
        ]
    }

    /// Runs the GApplication with `arguments` (program name, GApplication's own options, file
    /// paths) until it quits; returns its exit status. Must be called once.
    func run(arguments: [String]) -> Int32 {
        precondition(GtkApplicationHost.current == nil, "BatonGtk: GtkApplicationMain is already running")
        GtkApplicationHost.current = self
        defer { GtkApplicationHost.current = nil }
        var argv = arguments.map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        // GApplication iterates Baton's loop context until it quits: the loop is told so, as
        // `Application.run` tells it, so the main actor's executor wakes the context itself.
        let status = MainLoop.runHosted {
            argv.withUnsafeMutableBufferPointer { buffer in
                g_application_run(gApplication, Int32(buffer.count), buffer.baseAddress)
            }
        }
        release()
        return status
    }

    // MARK: GApplication's signals

    private func startup() {
        isPrimary = true
        g_application_hold(gApplication)
        isHeld = true
        terminationObserver = NotificationCenter.default.addObserver(
            forName: Application.willTerminateNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.batonTerminated() }
        }
        menuBar = GtkMenuBar(application: gtkApplication)
        Application.shared.finishLaunching()
    }

    private func activated() {
        guard !hasTerminated else { return }
        guard launchActivationSeen else {
            launchActivationSeen = true
            return
        }
        laterActivations += 1
        let app = Application.shared
        app.activate()
        (app.keyWindow ?? app.mainWindow ?? app.orderedWindows.first)?.makeKeyAndOrderFront(nil)
    }

    private func open(_ urls: [URL]) {
        launchActivationSeen = true
        guard !hasTerminated, !urls.isEmpty else { return }
        let app = Application.shared
        // Without a delegate, what the default of `application(_:open:)` does: open documents.
        if let delegate = app.delegate {
            delegate.application(app, open: urls)
        } else {
            for url in urls { _ = try? DocumentController.shared.openDocument(withContentsOf: url, display: true) }
        }
    }

    private func shutdown() {
        guard !hasTerminated else { return }
        hasTerminated = true
        // GApplication quit without Baton's terminate(_:): too late to ask the delegate.
        let app = Application.shared
        let notification = Notification(name: Application.willTerminateNotification, object: app)
        app.delegate?.applicationWillTerminate(notification)
        NotificationCenter.default.post(notification)
    }

    /// Baton's `terminate(_:)` went through (its will-terminate notification): end the run.
    private func batonTerminated() {
        guard !hasTerminated else { return }
        hasTerminated = true
        if isHeld {
            isHeld = false
            g_application_release(gApplication)
        }
        g_application_quit(gApplication)
    }

    // MARK: Handlers

    /// Disconnects the handlers (releasing their boxes), the observer, the hold and the object.
    private func release() {
        menuBar?.invalidate()
        menuBar = nil
        for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(gtkApplication), handler) }
        handlers = []
        if let terminationObserver { NotificationCenter.default.removeObserver(terminationObserver) }
        terminationObserver = nil
        if isHeld {
            isHeld = false
            g_application_release(gApplication)
        }
        g_object_unref(UnsafeMutableRawPointer(gtkApplication))
    }
}

/// What GApplication's `open` handler calls, with the files as file URLs.
private final class OpenSignalBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor ([URL]) -> Void
    init(_ body: @escaping @MainActor ([URL]) -> Void) { self.body = body }
}

/// `void open(GApplication *, GFile **files, gint n_files, gchar *hint, gpointer)`.
private let openSignalTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?
) -> Void = { _, files, count, _, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("GApplication's open signal")
    var urls: [URL] = []
    if let files {
        for index in 0..<Int(max(count, 0)) {
            guard let file = files[index], let path = g_file_get_path(file) else { continue }
            urls.append(URL(fileURLWithPath: String(cString: path)))
            g_free(path)
        }
    }
    let box = OpenSignalBox.borrow(userData)
    MainActor.assumeIsolated { box.body(urls) }
}
