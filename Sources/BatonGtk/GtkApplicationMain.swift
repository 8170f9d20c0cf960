import Baton
import BatonLoop
import CGtk
import Foundation

/// Runs a BatonGtk app: Baton's `Application` in a `GtkApplication` (see `GtkApplicationHost`),
/// on GLib's default main context, until Baton's `terminate(_:)`. AppKit's `NSApplicationMain`
/// for GTK, and BatonGtk's counterpart of `Application.main(delegate:)`:
///
/// ```swift
/// Application.shared.manifest = try AppManifest(contentsOf: manifestURL)  // or Info.plist beside the program
/// exit(GtkApplicationMain(delegate: AppDelegate(), openingFiles: files))
/// ```
///
/// Sets `delegate` (kept alive until it returns). The application ID is the manifest's
/// `CFBundleIdentifier`; without a manifest, or with an ID GLib refuses, it logs why and
/// returns 1 at once. In the primary instance it sends Baton's launch messages, then
/// `application(_:open:)` with `files` if there are any; in a later launch (another process
/// of the same app on the same session bus) it hands `files`, or an activation, to the primary
/// instance and returns 0 without launching anything. Returns GApplication's exit status: 0
/// after `terminate(_:)`.
///
/// The program's own command line is its own: GApplication sees only the program name,
/// `files`, and `--gapplication-service` when the process was given it (D-Bus activation of
/// a `DBusActivatable` app starts it so).
///
/// Call it from synchronous code on the main thread (top-level code), as `Application.main`,
/// with `MainLoop.context` left as GLib's default context (GApplication iterates that one).
///
/// Deviation: AppKit's `NSApplicationMain(_:_:)` never returns; this returns the exit status
/// so that the program chooses how to end, as `Application.main(delegate:)` returns.
@discardableResult
@MainActor
public func GtkApplicationMain(delegate: (any ApplicationDelegate)? = nil, openingFiles files: [URL] = []) -> Int32 {
    MainThreadRules.requireSynchronousMain("GtkApplicationMain()")
    precondition(MainLoop.context.gContext == g_main_context_default(),
                 "BatonGtk: GtkApplicationMain runs GLib's default main context; do not embed Baton's loop in another context")
    let app = Application.shared
    guard let applicationID = app.manifest?.appID else {
        FileHandle.standardError.write(Data("BatonGtk: no app manifest, so no application ID (CFBundleIdentifier); set Application.shared.manifest before GtkApplicationMain\n".utf8))
        return 1
    }
    guard let host = GtkApplicationHost(applicationID: applicationID) else {
        FileHandle.standardError.write(Data("BatonGtk: \(PrintableText.escaped(applicationID)) is not a valid application ID (g_application_id_is_valid)\n".utf8))
        return 1
    }
    // The main queue and the main actor are drained from GLib's default context, which
    // g_application_run iterates (Baton's own run() is not called).
    MainLoop.embed(in: MainLoop.context)
    let retained = delegate
    if let delegate { app.delegate = delegate }
    defer { withExtendedLifetime(retained) {} }
    var arguments = [CommandLine.arguments.first ?? applicationID]
    if CommandLine.arguments.dropFirst().contains("--gapplication-service") { arguments.append("--gapplication-service") }
    arguments += files.map(\.path)
    return host.run(arguments: arguments)
}
