import Baton
import CGtk
import Foundation

/// What Baton's page in GTK's Inspector shows, as plain text in sections: the app's windows
/// (which is key, which is main), the responder chains of the key and main windows from the
/// first responder up to the app delegate, the current activity, and the selected object of
/// the Inspector when it is one of Baton's windows or views.
///
/// Built from the app's state at the moment it is asked for (`current(selected:)`), on the
/// main actor; the page asks again only while it is on screen.
@MainActor
struct InspectorPageContent: Equatable {
    /// A heading and its lines.
    struct Section: Equatable {
        var heading: String
        var lines: [String]
    }

    var sections: [Section]

    /// The page for the app as it is now. `selected` is the object the Inspector has selected
    /// (its pages' `object` property), or nil.
    static func current(selected: UnsafeMutableRawPointer?) -> InspectorPageContent {
        let app = Application.shared
        var sections = [windows(app)]
        let key = app.keyWindow, main = app.mainWindow
        if let key {
            sections.append(chain(of: key, heading: key === main ? "Responder chain of the key and main window" : "Responder chain of the key window"))
        }
        if let main, main !== key {
            sections.append(chain(of: main, heading: "Responder chain of the main window"))
        }
        if key == nil && main == nil {
            sections.append(Section(heading: "Responder chain", lines: ["no key or main window"]))
        }
        sections.append(currentActivity(app))
        if let selected, let line = describe(selected: selected, in: app) {
            sections.append(Section(heading: "Selected in the Inspector", lines: [line]))
        }
        return InspectorPageContent(sections: sections)
    }

    /// The app's windows, front to back, then those not on screen; each with its roles.
    private static func windows(_ app: Application) -> Section {
        let ordered = app.orderedWindows
        let rest = app.windows.filter { window in !ordered.contains { $0 === window } }
        let lines = (ordered + rest).enumerated().map { index, window -> String in
            var roles: [String] = []
            if window.isKeyWindow { roles.append("key") }
            if window.isMainWindow { roles.append("main") }
            if !window.isVisible { roles.append("not on screen") }
            let first = window.firstResponder.map { "first responder \(text($0.responderDescription))" } ?? "no first responder"
            let role = roles.isEmpty ? "" : " [\(roles.joined(separator: ", "))]"
            return "\(index + 1). \(text(window.responderDescription))\(role), \(first)"
        }
        let state = app.isActive ? "active" : "not active"
        return Section(heading: "Windows (app \(state))", lines: lines.isEmpty ? ["no windows"] : lines)
    }

    /// The chain from `window`'s first responder (or the window) up, each responder with the
    /// activity it holds.
    private static func chain(of window: Window, heading: String) -> Section {
        let current = Application.shared.currentUserActivity
        let lines = ResponderChain.from(window.firstResponder ?? window).enumerated().map { index, responder -> String in
            var line = "\(index == 0 ? "→" : "↑") \(text(responder.responderDescription))"
            if let activity = responder.userActivity {
                line += "  userActivity \(text(activity.activityType))\(activity === current ? " (current)" : "")"
            }
            return line
        }
        return Section(heading: "\(heading) \(text(window.responderDescription))", lines: lines)
    }

    /// The current activity: type, title, holder, whether it needs saving and is offered.
    private static func currentActivity(_ app: Application) -> Section {
        guard let activity = app.currentUserActivity else {
            return Section(heading: "Current activity", lines: ["none"])
        }
        let holder = app.windows.lazy.compactMap { window in
            ResponderChain.from(window.firstResponder ?? window).first { $0.userActivity === activity }
        }.first
        let advertised = app.advertisedUserActivity === activity
        var lines = [
            "type         \(text(activity.activityType))",
            "title        \(activity.title.map(text) ?? "-")",
            "held by      \(holder.map { text($0.responderDescription) } ?? "no responder in a window's chain")",
            "needsSave    \(activity.needsSave ? "yes" : "no")",
            "Handoff      \(activity.isEligibleForHandoff ? "eligible" : "not eligible")"
                + (advertised ? ", offered to other devices" : ", not offered now" + (app.isActive ? "" : " (app not active)")),
        ]
        if let url = activity.webpageURL { lines.append("webpageURL   \(text(url.absoluteString))") }
        if let expiry = activity.expirationDate { lines.append("expires      \(expiry)") }
        return Section(heading: "Current activity", lines: lines)
    }

    /// The Baton window or view the Inspector's selected object backs, if any.
    private static func describe(selected: UnsafeMutableRawPointer, in app: Application) -> String? {
        for window in app.windows {
            if let gtk = (window as? GtkBackedWindow)?.gtkWindow, UnsafeMutableRawPointer(gtk) == selected {
                return "the GtkWindow of \(text(window.responderDescription))"
            }
            if let gtk = (window as? GtkBackedPanel)?.gtkWindow, UnsafeMutableRawPointer(gtk) == selected {
                return "the GtkWindow of \(text(window.responderDescription))"
            }
        }
        guard g_type_check_instance_is_a(selected.assumingMemoryBound(to: GTypeInstance.self), gtk_widget_get_type()) != 0 else {
            return nil
        }
        let widget = selected.assumingMemoryBound(to: GtkWidget.self)
        for window in app.windows {
            if let view = WidgetView.enclosing(widget, in: window) {
                let whose = view.widget == widget ? "the widget of" : "a widget inside"
                return "\(whose) \(text(view.responderDescription)) in \(text(window.responderDescription))"
            }
        }
        return nil
    }

    /// A name or title made safe to show on one line (it may have come from another device).
    private static func text(_ string: String) -> String { PrintableText.escaped(string) }
}
