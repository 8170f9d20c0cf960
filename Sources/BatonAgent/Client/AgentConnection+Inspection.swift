import Baton
import Foundation

/// Inspection over the connection the app already has (`org.baton.App1.Inspect` and
/// `org.baton.Agent1.Inspect`, version 5): no second socket, and nothing another user can
/// read (the agent's socket admits only this user).
extension AgentConnection {
    /// The most action names one `Inspect` asks about, and the longest name.
    static let maximumInspectedActions = 32
    static let maximumActionName = 256
    /// The first agent interface version with `Inspect`.
    static let inspectionVersion: UInt32 = 5

    /// Answers the agent's `Inspect`: the app as it is now (`Application.inspection(actions:)`),
    /// as JSON. Made on the main actor in this turn of the loop, so an app whose loop is busy
    /// answers late — the agent bounds its wait and says the app did not answer.
    func answerInspection(_ answer: DBusAnswer<AppMethod>, actions: [String]) {
        guard actions.count <= Self.maximumInspectedActions, actions.allSatisfy({ $0.utf8.count <= Self.maximumActionName }) else {
            return answer.fail(.failed, "at most \(Self.maximumInspectedActions) action names of at most \(Self.maximumActionName) bytes")
        }
        let inspection = Application.shared.inspection(actions: actions)
        do {
            let json = try InspectionJSON.encoder().encode(inspection)
            answer.reply(.inspect(actions: actions), String(decoding: json, as: UTF8.self))
        } catch {
            answer.fail(.failed, "the inspection did not encode: \(error)")
        }
    }

    /// What this device and its joined apps look like inside (`baton inspect`): the device's
    /// listener, discovery and links, what each linked device advertises and where it would go
    /// here (`ActivityOffer`), and each joined app's `ApplicationInspection` — or, for an app
    /// that did not answer within the agent's per-app deadline, that it did not. `app`, when
    /// given, keeps only the app of that id. Throws when not joined, when the agent is older
    /// than `Inspect`, or when it does not answer within `timeout`.
    public func inspect(app: String? = nil, actions: [String] = [], timeout: Duration = .seconds(15)) async throws -> AgentInspection {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        guard let version = agentVersion, version >= Self.inspectionVersion else {
            throw CocoaError.handoff(.featureUnsupported, "the agent speaks interface version \(agentVersion ?? 0), older than this program's \(AgentInterface.version): it cannot inspect; restart it to run the installed one")
        }
        let text = try await bus.call(.inspect(app: app ?? "", actions: actions), timeout: timeout)
        do {
            return try InspectionJSON.decoder().decode(AgentInspection.self, from: Data(text.utf8))
        } catch {
            throw CocoaError.handoff(.userActivityHandoffFailed, "the agent's inspection did not decode: \(error)")
        }
    }
}

extension AgentConnection {
    /// Calls `handler` with each event of the device (`InspectionEvent`) from now on, until the
    /// connection ends (`baton inspect --watch`). Throws when not joined, when the agent is older
    /// than `WatchInspection`, or when it refuses (too many watchers).
    public func watchInspection(_ handler: @escaping @MainActor (InspectionEvent) -> Void) async throws {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        guard let version = agentVersion, version >= Self.inspectionVersion else {
            throw CocoaError.handoff(.featureUnsupported, "the agent speaks interface version \(agentVersion ?? 0), older than this program's \(AgentInterface.version): it cannot be watched; restart it to run the installed one")
        }
        let decoder = InspectionJSON.decoder()
        _ = bus.subscribe(AgentSignal.Member.inspectionEvent) { (signal: AgentSignal) in
            guard case .inspectionEvent(let text) = signal, let event = try? decoder.decode(InspectionEvent.self, from: Data(text.utf8)) else { return }
            handler(event)
        }
        try await bus.call(.watchInspection(on: true), timeout: .seconds(15))
    }
}

extension AgentConnection {
    /// Answers the agent's `WatchInspection`: from `on`, each change of the app's
    /// `InspectionSummary` (once per turn of the loop at most) goes to the agent as
    /// `InspectionChanged`, the summary then first, until `off`. Nothing is observed while
    /// nobody watches.
    func answerWatchInspection(_ answer: DBusAnswer<AppMethod>, on: Bool) {
        answer.reply(.sendSummaries(on: on), ())
        guard on else {
            inspectionPush = nil
            return
        }
        // Made anew each time: after a reconnection the agent asks again, and a push whose send
        // failed has stopped.
        inspectionPush = InspectionPush { [weak self] text in
            guard let self, self.isJoined, let bus = self.bus else { return false }
            do {
                try await bus.call(.inspectionChanged(summary: text), timeout: .seconds(5))
                return true
            } catch {
                self.log.debug("the agent did not take InspectionChanged: \(error)")
                return false
            }
        }
    }
}

/// An app's summary sent to its agent while someone watches: at most one `InspectionChanged`
/// in flight; changes meanwhile are folded into the latest, sent when it is answered. A send
/// that fails ends it (the agent asks again when it wants it).
@MainActor
final class InspectionPush {
    private var observation: InspectionObservation?
    private var inFlight = false
    private var waiting: String?
    private let send: @MainActor (String) async -> Bool

    init(send: @escaping @MainActor (String) async -> Bool) {
        self.send = send
        let encoder = InspectionJSON.encoder()
        observation = Application.shared.observeInspectionSummary { [weak self] summary in
            guard let json = try? encoder.encode(summary), json.count <= AgentInterface.maximumSummary else { return }
            self?.push(String(decoding: json, as: UTF8.self))
        }
        // The summary now first, so a watcher knows from when it follows this app.
        if let json = try? encoder.encode(Application.shared.inspectionSummary()), json.count <= AgentInterface.maximumSummary {
            push(String(decoding: json, as: UTF8.self))
        }
    }

    private func push(_ text: String) {
        guard !inFlight else {
            waiting = text
            return
        }
        inFlight = true
        Task { @MainActor [weak self] in
            guard let self else { return }
            let sent = await self.send(text)
            self.inFlight = false
            guard sent else {
                self.observation?.cancel()
                return
            }
            if let next = self.waiting {
                self.waiting = nil
                self.push(next)
            }
        }
    }
}
