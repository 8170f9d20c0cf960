import BatonContinuity
import BatonLoop
import Foundation

/// One app's connection to the agent: D-Bus peer-to-peer, `org.baton.Agent1` exported by the
/// agent and `org.baton.App1` by the app. The app is joined once it has called `Join`.
@MainActor
final class JoinedApp {
    /// A number for this connection, unique in the agent's life.
    let number: UInt64
    let bus: LocalBus
    /// The peer's process, from the socket's credentials (for messages only: pids are reused).
    let pid: Int32
    var appID: String?
    var teamIdentifier: String?
    var activityTypes: [String] = []
    var advertisement: AppAdvertisement?
    /// The payload of the advertised activity as the app last saved it (`HoldPayload`), while
    /// the app has not said it changed (`PayloadChanged`): a peer's fetch is answered from it
    /// without a call to the app. Only for the advertisement `id` now; at most
    /// `UserActivity.payloadLimit` bytes.
    var heldPayload: (id: UInt64, data: Data)?
    var isActive = false
    /// When it last became active, in the agent's order of events (larger is later).
    var activeSince: UInt64 = 0
    /// Calls from the app that wait on the network now (capped per app).
    var pendingCalls = 0
    /// Whether a call past the cap was refused yet (logged the first time only).
    var refusedPastCallCap = false
    /// Until `Join`: closes the connection when it passes.
    var joinDeadline: LoopSource?

    var isJoined: Bool { appID != nil }
    var name: String { "\(appID ?? "an app") (pid \(pid))" }

    init(number: UInt64, bus: LocalBus, pid: Int32) {
        self.number = number
        self.bus = bus
        self.pid = pid
    }
}
