import Baton
import CGtk
import Foundation

/// What Baton's page in GTK's Inspector shows, as plain text in sections, made from the app's
/// inspection snapshot (`Application.inspection()`, the same facts `baton inspect` prints): the
/// app's windows in order (which is key, which is main), the responder chains of the key and
/// main windows from the first responder up to the app delegate, the current activity and the
/// other live ones (and why each is or is not offered to other devices), the activities other
/// devices offer here (and whether this app continues them), where the main menu's
/// actions would go now and whether they are enabled, the app's continuations step by step,
/// and which Baton window or view backs the object selected in the Inspector.
@MainActor
struct InspectorPageContent: Equatable {
    /// A heading and its lines.
    struct Section: Equatable {
        var heading: String
        var lines: [String]
    }

    var sections: [Section]

    /// The page for `app` as `inspection` shows it, with the menu `actions` answered, and
    /// `selected` the object the Inspector selected (its pages' `object` property), or nil.
    init(_ inspection: ApplicationInspection, actions: [ActionInspection], selected: UnsafeMutableRawPointer?,
         in app: Application) {
        sections = [Self.windows(inspection)]
        let key = inspection.keyWindow, main = inspection.mainWindow
        if let key {
            sections.append(Self.chain(of: key, in: inspection,
                                       heading: key.isMain ? "Responder chain of the key and main window" : "Responder chain of the key window"))
        }
        if let main, !main.isKey {
            sections.append(Self.chain(of: main, in: inspection, heading: "Responder chain of the main window"))
        }
        if key == nil && main == nil {
            sections.append(Self.frontChain(inspection, in: app))
        }
        sections.append(Section(heading: "Current activity", lines: inspection.currentActivity.map(Self.activity) ?? ["none"]))
        if !inspection.otherActivities.isEmpty {
            sections.append(Section(heading: "Other live activities", lines: inspection.otherActivities.map(Self.otherActivity)))
        }
        if !app.nearbyActivities.isEmpty {
            sections.append(Section(heading: "Offered here by other devices", lines: app.nearbyActivities.map { Self.nearby($0, in: app) }))
        }
        if !actions.isEmpty {
            sections.append(Section(heading: "Menu actions now", lines: Self.actions(actions)))
        }
        if !inspection.continuations.isEmpty {
            sections.append(Section(heading: "Continuations (newest first)", lines: inspection.continuations.reversed().flatMap(Self.continuation)))
        }
        if let selected, let line = Self.describe(selected: selected, in: app) {
            sections.append(Section(heading: "Selected in the Inspector", lines: [line]))
        }
    }

    /// The names of the actions the app's main menu sends, top to bottom, each once.
    static func menuActionNames(of app: Application) -> [String] {
        var names: [String] = []
        func visit(_ menu: Menu) {
            for item in menu.items {
                if let name = item.action?.name, !names.contains(name) { names.append(name) }
                if let submenu = item.submenu { visit(submenu) }
            }
        }
        if let menu = app.mainMenu { visit(menu) }
        return names
    }

    /// The app's windows, front to back, then those not on screen; each with its roles.
    private static func windows(_ inspection: ApplicationInspection) -> Section {
        let lines = inspection.windows.enumerated().map { index, window -> String in
            var roles: [String] = []
            if window.isKey { roles.append("key") }
            if window.isMain { roles.append("main") }
            if window.isPanel { roles.append("panel") }
            if !window.isVisible { roles.append("not on screen") }
            let role = roles.isEmpty ? "" : " [\(roles.joined(separator: ", "))]"
            let first = window.firstResponder.map { "first responder \(text($0))" } ?? "the window is first responder"
            return "\(index + 1). \(name(window))\(role), \(first)"
        }
        var state = inspection.isActive ? "active" : "not active"
        if inspection.isHidden { state += ", hidden" }
        let app = inspection.appID.map { "\(text($0)), " } ?? ""
        return Section(heading: "Windows (\(app)\(state))", lines: lines.isEmpty ? ["no windows"] : lines)
    }

    /// The chain from `window`'s first responder up, each responder with the activity it holds.
    private static func chain(of window: WindowInspection, in inspection: ApplicationInspection, heading: String) -> Section {
        let current = inspection.currentActivity
        let lines = (window.responderChain ?? []).enumerated().map { index, link -> String in
            var line = "\(index == 0 ? "→" : "↑") \(text(link.description))"
            if let type = link.userActivityType {
                let isCurrent = current.map { $0.activityType == type && $0.holders.contains(link.description) } ?? false
                line += "  userActivity \(text(type))\(isCurrent ? " (current)" : "")"
            }
            return line
        }
        return Section(heading: "\(heading) \(name(window))", lines: lines)
    }

    /// With no key or main window (the app is not active: GTK's focus is in another app's
    /// window, or in the Inspector's own), the chain of the front window, which becomes key and
    /// main when the app is active again. The snapshot has chains only for the key and main
    /// windows, so this one is read from the live window.
    private static func frontChain(_ inspection: ApplicationInspection, in app: Application) -> Section {
        guard let front = inspection.windows.first(where: { $0.isVisible && !$0.isPanel }),
              let window = app.window(withWindowNumber: front.number) else {
            return Section(heading: "Responder chain", lines: ["no key or main window, and no window on screen"])
        }
        let lines = ResponderChain.from(window.firstResponder ?? window).enumerated().map { index, responder -> String in
            let activity = responder.userActivity.map { "  userActivity \(text($0.activityType))" } ?? ""
            return "\(index == 0 ? "→" : "↑") \(text(responder.responderDescription))\(activity)"
        }
        return Section(heading: "Responder chain of the front window \(name(front)) (no key or main window: the app is not active)",
                       lines: lines)
    }

    /// The current activity: what it is, who holds it, its saves and payload, whether it is offered.
    private static func activity(_ activity: ActivityInspection) -> [String] {
        var lines = [
            "type         \(text(activity.activityType))",
            "title        \(activity.title.map(text) ?? "-")",
            "held by      \(activity.holders.isEmpty ? "the app's own code" : activity.holders.map(text).joined(separator: ", "))",
            "needsSave    \(activity.needsSave ? "yes" : "no")",
            "saves        \(saves(activity))",
            "payload      \(payload(activity))",
        ]
        if let url = activity.webpageURL { lines.append("webpageURL   \(text(url.absoluteString))") }
        if let expiry = activity.expirationDate { lines.append("expires      \(time(expiry))") }
        let declared = activity.declaredInManifest.map { $0 ? "declared in the manifest" : "not declared in the manifest" } ?? "no manifest"
        let team = activity.teamIdentifier.map { ", team \(text($0))" } ?? ""
        lines.append("manifest     \(declared)\(team)")
        lines.append("Handoff      \(activity.advertising.explanation)")
        return lines
    }

    private static func otherActivity(_ activity: ActivityInspection) -> String {
        let holders = activity.holders.isEmpty ? "the app's own code" : activity.holders.map(text).joined(separator: ", ")
        let title = activity.title.map { " '\(text($0))'" } ?? ""
        return "\(text(activity.activityType))\(title), held by \(holders): \(activity.advertising.explanation)"
    }

    /// An activity another device advertises, and whether this app may continue it (its
    /// manifest declares the type, for the same team).
    private static func nearby(_ activity: NearbyActivity, in app: Application) -> String {
        let title = activity.title.map { " '\(text($0))'" } ?? ""
        let here: String
        if let manifest = app.manifest {
            here = manifest.canContinue(activityType: activity.activityType, fromTeam: activity.teamIdentifier)
                ? "this app continues it" : "this app does not continue it (type not declared, or another team)"
        } else {
            here = "this app has no manifest"
        }
        return "\(text(activity.device)): \(text(activity.activityType))\(title) from \(text(activity.appID)), \(here)"
    }

    /// A continuation: what and from where (or, on the originating side, served to where),
    /// then each step with its time (milliseconds).
    private static func continuation(_ record: ContinuationRecord) -> [String] {
        let title = record.title.map { " '\(text($0))'" } ?? ""
        let originating = record.side == .originating
        let from = record.device.map { originating ? " served to \(text($0))" : " from \(text($0))" } ?? (originating ? " served" : "")
        let done = originating ? "continued there" : "continued"
        let state = record.isFinished ? (record.failureCode.map { "failed, code \($0)" } ?? done) : "in progress"
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss.SSS"
        return ["\(record.id). \(text(record.activityType))\(title)\(from): \(state)"]
            + record.steps.map { "    \(formatter.string(from: $0.time))  \(text($0.kind.words))" }
    }

    private static func saves(_ activity: ActivityInspection) -> String {
        guard activity.saveCount > 0 else { return "none yet" }
        let last = activity.lastSaved.map { ", last at \(time($0))" } ?? ""
        return "\(activity.saveCount)\(last), \(activity.coalescedSaveRequests) requests coalesced"
    }

    private static func payload(_ activity: ActivityInspection) -> String {
        guard let size = activity.payloadSize else { return "cannot be encoded: \(text(activity.payloadError ?? "unknown"))" }
        let limits = "advice \(ActivityInspection.payloadAdvisedSize), cap \(ActivityInspection.payloadLimit)"
        switch activity.payloadAssessment {
        case .withinAdvice: return "\(size) bytes, within Apple's advice (\(limits))"
        case .overAdvice: return "\(size) bytes, over Apple's advice but sent (\(limits))"
        case .overLimit: return "\(size) bytes, over Baton's cap: a handoff fails (\(limits))"
        case .unencodable: return "cannot be encoded"
        }
    }

    /// Where each menu action goes now and whether its item is enabled.
    private static func actions(_ actions: [ActionInspection]) -> [String] {
        let width = min(actions.map(\.name.count).max() ?? 0, 24)
        return actions.map { action in
            let name = text(action.name).padding(toLength: max(width, action.name.count), withPad: " ", startingAt: 0)
            let target = action.target.map { "→ \(text($0))" } ?? "→ nothing handles it"
            return "\(name)  \(action.isEnabled ? "enabled " : "disabled")  \(target)"
        }
    }

    /// The Baton window or view the Inspector's selected object backs, if any.
    private static func describe(selected: UnsafeMutableRawPointer, in app: Application) -> String? {
        for window in app.windows {
            let gtk = (window as? GtkBackedWindow)?.gtkWindow ?? (window as? GtkBackedPanel)?.gtkWindow
            if let gtk, UnsafeMutableRawPointer(gtk) == selected {
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

    private static func name(_ window: WindowInspection) -> String { "\(text(window.typeName)) '\(text(window.title))'" }

    private static func time(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// A name or title made safe to show on one line (it may have come from another device).
    private static func text(_ string: String) -> String { PrintableText.escaped(string) }
}
