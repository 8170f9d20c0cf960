import BatonContinuity
import BatonLoop
import Foundation
import Logging

/// Desktop notifications for pairing requests (org.freedesktop.Notifications, through the same
/// `NotificationServerLink` as `ContinueNotifier`): "A new device wants to join: code 123 456"
/// with Accept and Decline, kept until answered (urgency critical, no expiry).
///
/// Accept means the person here confirms the code: the new device shows the same one (or says
/// it matched, when its person types it). The newcomer's name is not known yet (it is said only
/// after its own person's yes), so the notification names no device. Decline, or the
/// notification dismissed by the person, is a no. A notification closed otherwise (the server
/// went, it expired anyway) answers nothing: the request then waits for another answer or
/// the window's end. A question whose task is cancelled (answered elsewhere, the session or
/// window ended) withdraws its notification.
///
/// No bus, no server on it, or turned off: `ask` answers nil at once (nothing shown).
@MainActor
public final class PairingNotifier {
    /// The action keys of the buttons.
    nonisolated public static let acceptAction = "accept"
    /// See `acceptAction`.
    nonisolated public static let declineAction = "decline"
    /// The Desktop Notifications reason of a notification dismissed by the person.
    nonisolated static let dismissedByUser: UInt32 = 2
    /// The most answers kept for notifications whose `Notify` reply has not come yet.
    static let maximumEarlyAnswers = 16

    /// False: `start()` does nothing and `ask` answers nil.
    public let isEnabled: Bool
    /// The bound of every call to the server, and of connecting to the bus.
    public var callTimeout: Duration = .seconds(5)
    /// Whether a notification server owns the name now.
    public private(set) var hasServer = false
    /// The ids of the requests shown now.
    public var shownIDs: [UInt32] { Array(waiting.keys) }

    private let busAddress: String?
    private let log = Logger(label: "baton.agent")
    private var link: NotificationServerLink?
    /// The person's answer to each notification shown, awaited by its `ask`.
    private var waiting: [UInt32: CheckedContinuation<Bool?, Never>] = [:]
    /// `Notify` calls in flight.
    private var notifying = 0
    /// Answers (true, false, or nil: closed) that came before the `Notify` reply naming their id.
    private var earlyAnswers: [(id: UInt32, answer: Bool?)] = []

    /// A notifier that posts to the server on `busAddress` (nil: the session bus,
    /// `ContinueNotifier.sessionBusAddress`). With `enabled` false it never connects.
    public init(enabled: Bool = true, busAddress: String? = nil) {
        isEnabled = enabled
        self.busAddress = busAddress
    }

    /// Connects to the bus and watches for a notification server.
    public func start() {
        guard isEnabled, link == nil else { return }
        guard let address = busAddress ?? ContinueNotifier.sessionBusAddress() else {
            return log.info("no session bus: pairing requests are not shown as notifications")
        }
        let link = NotificationServerLink(address: address, callTimeout: callTimeout) { [weak self] event in
            guard let self else { return }
            switch event {
            case .connected: break
            case .unreachable(let reason): self.log.info("cannot reach the session bus (\(reason)): pairing requests are not shown as notifications")
            case .appeared: self.hasServer = true
            case .vanished: self.serverGone()
            case .signal(let member, let parameters): self.signal(member, parameters)
            }
        }
        self.link = link
        link.start()
    }

    /// Withdraws the requests shown (their questions answer nil) and closes the bus connection.
    public func stop() {
        let shown = hasServer ? Array(waiting.keys) : []
        serverGone()
        link?.stop(withdrawing: shown)
        link = nil
    }

    /// Shows the request for `code` and waits for the person: true for Accept, false for
    /// Decline (or dismissed), nil if it could not be shown or was closed without an answer,
    /// or if the task was cancelled (the notification is then withdrawn). `newcomerTypes`:
    /// the new device says its person types this code there (the words change, not the question).
    public func ask(code: PairingCode, newcomerTypes: Bool, from host: String?, group: String) async -> Bool? {
        guard hasServer, let connection = link?.connection, !Task.isCancelled else { return nil }
        notifying += 1
        // Not cancelled with the question: the server may show it before an answer elsewhere
        // cancels this, and only its reply's id lets it be withdrawn (below).
        let parameters = Self.parameters(code: code, newcomerTypes: newcomerTypes, from: host, group: group)
        let timeout = callTimeout
        let result = await Task { @MainActor in
            await connection.call("Notify", parameters, replyType: "(u)", timeout: timeout)
        }.loopValue()
        notifying -= 1
        guard case .success(.tuple(let items)) = result, items.count == 1, case .uint32(let id) = items[0], id != 0 else {
            if case .failure(let error) = result { log.notice("could not show a pairing request: \(error)") }
            if notifying == 0 { earlyAnswers = [] }
            return nil
        }
        if let early = earlyAnswers.first(where: { $0.id == id }) {
            earlyAnswers.removeAll { $0.id == id }
            if early.answer != nil { withdraw(id) }
            return early.answer
        }
        if notifying == 0 { earlyAnswers = [] }
        guard !Task.isCancelled, hasServer else {
            withdraw(id)
            return nil
        }
        let answer = await withTaskCancellationHandler {
            await withLoopContinuation { waiting[id] = $0 }
        } onCancel: {
            Task { @MainActor [weak self] in
                guard let self, self.resolve(id, nil) else { return }
                self.withdraw(id)
            }
        }
        // Answered: the server may keep it (resident); it is closed here in any case.
        if answer != nil { withdraw(id) }
        return answer
    }

    /// The words and buttons of one request.
    static func parameters(code: PairingCode, newcomerTypes: Bool, from host: String?, group: String) -> NotifyParameters {
        let from = host.map { " from \(NotificationText.shown($0))" } ?? ""
        let check = newcomerTypes ? "Accept only if the new device says “code \(code) matches”."
            : "Accept only if the new device shows the same code."
        return NotifyParameters(replacesID: 0, summary: "A new device wants to join: code \(code)",
                                body: NotificationText.markupEscaped("A device\(from) asks to join group \(NotificationText.shown(group)). \(check)"),
                                actions: [acceptAction, "Accept", declineAction, "Decline"], urgency: 2, expireTimeout: 0)
    }

    private func signal(_ member: String, _ parameters: Variant?) {
        guard case .tuple(let items)? = parameters, items.count == 2, case .uint32(let id) = items[0], id != 0 else { return }
        let answer: Bool?
        switch (member, items[1]) {
        case ("ActionInvoked", .string(Self.acceptAction)): answer = true
        case ("ActionInvoked", .string(Self.declineAction)): answer = false
        case ("NotificationClosed", .uint32(let reason)): answer = reason == Self.dismissedByUser ? false : nil
        default: return
        }
        if resolve(id, answer) { return }
        // Perhaps about a notification whose Notify reply is still on its way.
        if notifying > 0, earlyAnswers.count < Self.maximumEarlyAnswers { earlyAnswers.append((id, answer)) }
    }

    /// Ends the question of notification `id` with `answer`; false if none waits.
    @discardableResult
    private func resolve(_ id: UInt32, _ answer: Bool?) -> Bool {
        guard let continuation = waiting.removeValue(forKey: id) else { return false }
        continuation.resume(returning: answer)
        return true
    }

    private func withdraw(_ id: UInt32) {
        guard hasServer, let connection = link?.connection else { return }
        let timeout = callTimeout
        Task { _ = await connection.call("CloseNotification", NotifyParameters(closing: id), replyType: "()", timeout: timeout) }
    }

    private func serverGone() {
        hasServer = false
        earlyAnswers = []
        for id in Array(waiting.keys) { resolve(id, nil) }
    }
}
