import ArgumentParser
import BatonAgent
import BatonContinuity
import Foundation

/// `baton inspect [APPID] [--json] [--action NAME]…`: the whole picture of this device, asked of
/// the agent, which asks each joined app over the connection it already has.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show inside this device and its apps: windows, responder chains, activities, links, offers.",
        discussion: """
            Asks this user's agent (batond), which asks each joined app (or only APPID) for its windows in
            order, key and main, the responder chains of the key and main windows, the current activity
            (saves, payload size, eligibility) and the other live ones; and shows the device's listener,
            discovery, links, and for what each linked device advertises, where it would go here.
            An app that does not answer within the agent's deadline is shown as not answering.
            With --json, one JSON document (`AgentInspection`; schema in docs/INSPECT.md).
            With --watch, the picture, then each event of the device as it happens (links, apps joining and
            leaving, activities offered and withdrawn, continuations), until interrupted; with --json, one JSON
            line each: {"inspection": …} first, then {"event": …} (`InspectionEvent`).
            Exits with 3 when no agent runs.
            """)
    @Argument(help: "Only this app (its app ID).") var appID: String?
    @Flag(name: .long, help: "Print one JSON document instead of text.") var json = false
    @Flag(name: .long, help: "Then follow the device's events as they happen, until interrupted.") var watch = false
    @Option(name: .long, help: "Also show where this action would go in each app, and whether it is enabled (repeatable).")
    var action: [String] = []
    @Option(name: .long, help: "The agent's socket (default: $BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket).")
    var agent: String?

    func run() throws {
        if watch { return try AgentInspectionTool.watch(socket: agent, app: appID, actions: action, json: json) }
        let inspection = try AgentInspectionTool.read(socket: agent, app: appID, actions: action)
        if json {
            FileHandle.standardOutput.write((try? InspectionJSON.encoder(pretty: true).encode(inspection)) ?? Data("{}".utf8))
            print()
        } else {
            InspectionText.print(inspection, onlyApp: appID != nil)
        }
    }
}

/// `baton inspect` and `baton why` as a tool joined to the agent: asks for the inspection once
/// (`read`, an `AgentQuestion`), or watches (`watch`, this app): the picture, then the
/// device's events as they come.
final class AgentInspectionTool: AgentToolApp {
    let app: String?
    let actions: [String]
    /// One JSON line each instead of text.
    let json: Bool
    /// The events that came before the picture was printed; nil once it was.
    private var waiting: [InspectionEvent]? = []

    init(connection: AgentConnection, app: String?, actions: [String], json: Bool) {
        self.app = app
        self.actions = actions
        self.json = json
        super.init(connection: connection)
    }

    override func joined() {
        super.joined()
        Task { @MainActor in
            do {
                // Watch first, so nothing between the picture and the first event is missed.
                try await connection.watchInspection { [weak self] event in
                    guard let self else { return }
                    if self.waiting != nil { self.waiting?.append(event) } else { self.show(event, json: json) }
                }
                let inspection = try await connection.inspect(app: app, actions: actions)
                if json { Self.line(["inspection": inspection]) } else {
                    InspectionText.print(inspection, onlyApp: app != nil)
                    fflush(nil)  // the events are written unbuffered after it
                }
                let early = waiting ?? []
                waiting = nil
                for event in early { show(event, json: json) }
            } catch {
                failure = "the agent did not inspect: \(error)"
                Application.shared.terminate(nil)
            }
        }
    }

    private func show(_ event: InspectionEvent, json: Bool) {
        if json { return Self.line(["event": event]) }
        let dropped = event.dropped > 0 ? " (\(event.dropped) events left out before it)" : ""
        let what = if let record = event.continuation {
            "continuation \(record.id) of \(InspectionText.subject(record)): \(shown(record.steps.last?.kind.words ?? ""))"
        } else if let change = event.app {
            "app \(shown(change.appID)) (pid \(change.processID)): \(shown(change.summary.words))"
        } else {
            shown(event.event.map { String(describing: $0) } ?? "")
        }
        let text = "\(InspectionText.timestamp(event.time)) \(what)\(dropped)\n"
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private static func line<Value: Encodable>(_ value: [String: Value]) {
        guard let data = try? InspectionJSON.encoder().encode(value) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// The agent's inspection at `socket` (default: the user's); exit status 3 when no agent runs.
    nonisolated static func read(socket explicit: String?, app: String?, actions: [String]) throws -> AgentInspection {
        try MainActor.assumeIsolated {
            var outcome: Result<AgentInspection, any Error>?
            try run(socket: explicit) { connection in
                AgentQuestion(connection: connection, ask: { try await $0.inspect(app: app, actions: actions) }) { outcome = $0 }
            }
            switch outcome {
            case .success(let inspection): return inspection
            case .failure(let error): throw ValidationError("the agent did not inspect: \(error)")
            case nil: throw ValidationError("the agent did not answer")
            }
        }
    }

    /// Watches the agent at `socket` (default: the user's) until the process is interrupted or
    /// the agent goes; exit status 3 when no agent runs.
    nonisolated static func watch(socket explicit: String?, app: String?, actions: [String], json: Bool) throws {
        try MainActor.assumeIsolated {
            try run(socket: explicit) { AgentInspectionTool(connection: $0, app: app, actions: actions, json: json) }
        }
    }

    /// Runs `tool` joined to the agent at `socket` (default: the user's) until it ends; exit
    /// status 3 when no agent runs.
    private static func run(socket explicit: String?, _ tool: @escaping @MainActor (AgentConnection) -> AgentToolApp) throws {
        let path = explicit ?? AgentConnection.defaultSocketPath
        guard let socket = ThroughAgent.runningAgent(path) else {
            FileHandle.standardError.write(Data("baton: no agent runs at \(shown(path)) (`baton agent start`)\n".utf8))
            throw ExitCode(3)
        }
        let failure = ThroughAgent.run(tool, socket: socket)
        if let failure { throw ValidationError(failure) }
    }
}

/// `baton inspect` as text; every string from an app or another device escaped.
enum InspectionText {
    static func print(_ inspection: AgentInspection, onlyApp: Bool) {
        if !onlyApp { printDevice(inspection) }
        if inspection.apps.isEmpty { Swift.print(onlyApp ? "app: not joined to the agent" : "apps: none joined") }
        for app in inspection.apps { printApp(app) }
    }

    static func printDevice(_ inspection: AgentInspection) {
        let device = inspection.device
        Swift.print("device: \(shown(device.device)) of group '\(shown(device.group))'")
        Swift.print("listening: \(shown(device.listening.host)) port \(device.listening.port) (\(device.listening.reach))")
        Swift.print("discovery: \(device.discovery.working ? "" : "NOT WORKING: ")\(shown(device.discovery.explanation))")
        if device.links.isEmpty { Swift.print("links: none") }
        for link in device.links {
            let roundTrip = link.roundTripMilliseconds.map { String(format: "round trip %.2f ms", $0) }
                ?? "round trip — (no answer to a ping within \(ContinuityNode.roundTripDeadline))"
            let dropped = link.droppedStreamBytes > 0 ? ", \(link.droppedStreamBytes) stream bytes dropped" : ""
            Swift.print("link: \(shown(link.device)) at \(shown(link.address)) (\(link.path.words)), since \(timestamp(link.since)), \(roundTrip)\(dropped)")
        }
        let unlinked = inspection.groupDevices.filter { name in !device.links.contains { $0.device == name } }
        let revoked = unlinked.filter(inspection.revokedDevices.contains)
        let notLinked = unlinked.filter { !revoked.contains($0) }
        if !revoked.isEmpty { Swift.print("revoked: \(revoked.map(shown).joined(separator: ", "))") }
        if !notLinked.isEmpty { Swift.print("not linked: \(notLinked.map(shown).joined(separator: ", "))") }
        if inspection.nearby.isEmpty { Swift.print("nearby: nothing advertised by a linked device") }
        for nearby in inspection.nearby {
            let entry = nearby.activity
            let title = entry.title.map { " '\(shown($0))'" } ?? ""
            Swift.print("nearby: \(shown(entry.activityType))\(title) from \(shown(entry.device)) (\(shown(entry.appID)), team \(shown(entry.teamIdentifier)))")
            Swift.print("  \(nearby.explanation)")
        }
        printContinuations(inspection.continuations, indent: "")
    }

    /// The continuations, oldest first, each step with its time.
    static func printContinuations(_ records: [ContinuationRecord], indent: String) {
        if records.isEmpty { return Swift.print("\(indent)continuations: none") }
        for record in records {
            let done = record.side == .originating ? "continued there" : "continued"
            let state = record.isFinished ? (record.failureCode.map { "failed, code \($0)" } ?? done) : "in progress"
            Swift.print("\(indent)continuation \(record.id): \(subject(record)) — \(state)")
            for step in record.steps { Swift.print("\(indent)  \(timestamp(step.time, milliseconds: true)) \(shown(step.kind.words))") }
            if record.droppedSteps > 0 { Swift.print("\(indent)  (\(record.droppedSteps) more steps left out)") }
        }
    }

    /// A continuation's activity type, title and the other device (the originating one, or, on
    /// the originating side, the one it was served to), escaped.
    static func subject(_ record: ContinuationRecord) -> String {
        let title = record.title.map { " '\(shown($0))'" } ?? ""
        let other = record.device.map { record.side == .originating ? " served to \(shown($0))" : " from \(shown($0))" }
            ?? (record.side == .originating ? " served" : "")
        return "\(shown(record.activityType))\(title)\(other)"
    }

    static func printApp(_ app: AgentInspection.AppReport) {
        let advertised = app.isAdvertised ? ", advertised by the device" : ""
        Swift.print("app: \(shown(app.appID)), pid \(app.processID)\(advertised)")
        guard let inspection = app.inspection else {
            return Swift.print("  \(app.didNotAnswer ? "did not answer" : "no inspection"): \(shown(app.problem ?? ""))")
        }
        Swift.print("  \(inspection.isActive ? "active" : "inactive")\(inspection.isHidden ? ", hidden" : "")")
        for window in inspection.windows {
            var marks: [String] = []
            if window.isKey { marks.append("key") }
            if window.isMain { marks.append("main") }
            if !window.isVisible { marks.append("not on screen") }
            if window.isPanel { marks.append("panel") }
            let mark = marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))"
            Swift.print("  window \(window.number): \(shown(window.typeName)) '\(shown(window.title))'\(mark)")
            for link in window.responderChain ?? [] {
                let activity = link.userActivityType.map { "  [userActivity \(shown($0))]" } ?? ""
                Swift.print("    \(link.isFirstResponder ? "→" : " ") \(shown(link.description))\(activity)")
            }
        }
        if let current = inspection.currentActivity { printActivity(current, label: "current activity") }
        else { Swift.print("  current activity: none") }
        for other in inspection.otherActivities { printActivity(other, label: "other activity") }
        for action in inspection.actions {
            guard action.isKnown else {
                Swift.print("  action \(shown(action.name)): not in the main menu nor a standard command")
                continue
            }
            let target = action.target.map { "goes to \(shown($0))" } ?? "reaches no target"
            Swift.print("  action \(shown(action.name)): \(target), \(action.isEnabled ? "enabled" : "disabled")")
        }
        printContinuations(inspection.continuations, indent: "  ")
    }

    static func printActivity(_ activity: ActivityInspection, label: String) {
        let title = activity.title.map { " '\(shown($0))'" } ?? ""
        Swift.print("  \(label): \(shown(activity.activityType))\(title) — \(activity.advertising.explanation)")
        if !activity.holders.isEmpty { Swift.print("    held by: \(activity.holders.map(shown).joined(separator: ", "))") }
        let saved = activity.lastSaved.map { "last saved \(timestamp($0))" } ?? "never saved"
        Swift.print("    needsSave \(activity.needsSave), \(saved), \(activity.saveCount) saves, \(activity.coalescedSaveRequests) requests coalesced")
        let size = activity.payloadSize.map { "\($0) bytes" } ?? "cannot be encoded: \(shown(activity.payloadError ?? ""))"
        Swift.print("    payload: \(size) (advice \(ActivityInspection.payloadAdvisedSize), cap \(ActivityInspection.payloadLimit): \(activity.payloadAssessment.rawValue))")
        if let url = activity.webpageURL { Swift.print("    webpageURL: \(shown(url.absoluteString))") }
        let declared = activity.declaredInManifest.map { $0 ? "declared in the manifest" : "NOT declared in the manifest" } ?? "no manifest"
        Swift.print("    \(declared), team \(shown(activity.teamIdentifier ?? "?")), eligible for handoff: \(activity.isEligibleForHandoff)")
    }

    static func timestamp(_ date: Date, milliseconds: Bool = false) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = milliseconds ? "HH:mm:ss.SSS" : "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
