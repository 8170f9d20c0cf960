import BatonLoop
import CGLib
import Foundation

/// Native app-to-web handoff (handoff-programming-guide, "Native App-to-Web Browser
/// Handoff"): an activity no app here can continue, but which carries a `webpageURL`, opens in
/// the desktop's default web browser.
public enum WebBrowser {
    /// Opens `url` (http or https only) with the default handler for its scheme, through
    /// GIO's `g_app_info_launch_default_for_uri`, which follows the XDG MIME settings
    /// (`mimeapps.list`, `x-scheme-handler/https`). What GIO attaches while launching (a
    /// session-bus connection, a portal call) attaches to the app's loop.
    @MainActor
    public static func open(_ url: URL) throws(WebHandoffError) {
        guard let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            throw .notAWebPage(url.absoluteString)
        }
        var error: UnsafeMutablePointer<GError>?
        let launched = MainLoop.withThreadDefaultContext { g_app_info_launch_default_for_uri(url.absoluteString, nil, &error) }
        guard launched != 0 else {
            throw .noBrowser(GLibError(consuming: error!).message)
        }
    }
}

/// Why a web page could not be opened.
public enum WebHandoffError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Only http and https URLs open in a browser (as `webpageURL` requires).
    case notAWebPage(String)
    /// The desktop has no handler for the URL, or it did not start.
    case noBrowser(String)

    public var description: String {
        switch self {
        case .notAWebPage(let url): "\(url) is not an http or https URL"
        case .noBrowser(let reason): "no web browser could open the page: \(reason)"
        }
    }
}
