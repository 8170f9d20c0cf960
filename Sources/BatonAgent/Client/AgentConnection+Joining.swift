import Baton
import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

/// Reaching the agent: connecting to its socket (starting the agent where it may), joining
/// with `Join`, retrying with a backoff while it is unavailable, and letting go of the bus.
extension AgentConnection {
    /// Joins the agent unless joined, joining or left; on failure starts the agent (once an
    /// outage, where `autostart`) or tries again after the backoff.
    func connect() {
        guard !stopped, !connecting, bus == nil else { return }
        connecting = true
        Task { @MainActor in
            defer { connecting = false }
            do {
                try await joinAgent()
                backoff = .zero
                autostarted = false
                if unavailableLogged { log.info("joined the agent at \(socketPath) again") }
                unavailableLogged = false
                diagnostics.publish(.joinedAgent(socketPath: socketPath, version: agentVersion ?? 0))
                onJoined?()
            } catch {
                disconnect()
                if autostart, !autostarted, Self.nobodyListens(error) {
                    autostarted = true
                    return startAgent()
                }
                if !unavailableLogged {
                    unavailableLogged = true
                    log.notice("the agent at \(socketPath) is unavailable (\(error)); trying again in the background")
                }
                scheduleRetry()
            }
        }
    }

    /// Whether `error` says no agent listens at the socket (no file, or nobody accepting).
    private static func nobodyListens(_ error: any Error) -> Bool {
        guard let error = error as? GLibError else { return false }
        return error.isIOError(G_IO_ERROR_NOT_FOUND) || error.isIOError(G_IO_ERROR_CONNECTION_REFUSED)
    }

    /// Starts the agent, then joins it at once; a failure is logged once and retried as any.
    private func startAgent() {
        Task { @MainActor in
            do {
                try await AgentAutostart.start(in: AgentRuntimeDirectory(socketPath: socketPath))
                log.info("started the agent (\(socketPath))")
                connect()
            } catch {
                unavailableLogged = true
                log.notice("the agent at \(socketPath) is unavailable and could not be started: \(error); trying again in the background")
                scheduleRetry()
            }
        }
    }

    func scheduleRetry() {
        guard !stopped, retry == nil else { return }
        backoff = min(backoff == .zero ? .milliseconds(500) : backoff * 2, maximumBackoff)
        retry = MainLoop.after(backoff) { [weak self] in
            self?.retry = nil
            self?.connect()
        }
    }

    /// A new connection to the agent's socket (a `GSocketConnection *`, owned by the caller).
    ///
    /// A Unix socket connects at once or fails at once (no file, nobody listening, or the
    /// agent's backlog full: `EAGAIN`), so the connect is made directly, in this turn of the
    /// loop; a failure is retried as any. (GIO's `GSocketClient` would fail the same way, after
    /// some loop turns: about a millisecond for a freshly started app.)
    func connectToSocket() throws -> OpaquePointer {
        let address = g_unix_socket_address_new(socketPath)!
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error) else {
            throw GLibError(consuming: error!)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
        g_socket_set_blocking(socket, 0)
        guard g_socket_connect(socket, address, nil, &error) != 0 else { throw GLibError(consuming: error!) }
        g_socket_set_blocking(socket, 1)
        return OpaquePointer(g_socket_connection_factory_create_connection(socket))
    }

    /// Connects, sets up D-Bus (exporting `org.baton.App1`, subscribing to `NearbyChanged`),
    /// calls `Join`, then sends the advertisement, hands on what was handed over meanwhile and
    /// takes what is nearby.
    private func joinAgent() async throws {
        let connection = try connectToSocket()
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }  // the bus holds its own
        let bus = try await LocalBus.connect(over: connection, timeout: callTimeout)
        bus.export(path: AgentInterface.appPath, info: AgentInterface.appInfo) { [weak self] call in
            guard let self else { return DBusAnswer<AppMethod>(call).fail(.failed, "the app is leaving") }
            self.answer(call)
        }
        self.bus = bus
        nearbySubscription = bus.subscribe(AgentSignal.Member.nearbyChanged) { [weak self, weak bus] (signal: AgentSignal) in
            guard let self, let bus, self.bus === bus, case .nearbyChanged(let list) = signal else { return }
            Application.shared.updateNearbyActivities(AgentInterface.nearbyList(from: list))
        }
        bus.onClosed { [weak self, weak bus] in
            guard let self, let bus, self.bus === bus else { return }
            self.log.notice("the agent at \(self.socketPath) went away; trying again in the background")
            self.unavailableLogged = true
            self.disconnect()
            self.scheduleRetry()
        }
        bus.startMessageProcessing()
        let manifest = Application.shared.manifest
        guard let manifest else { throw CocoaError.handoff(.userActivityConnectionUnavailable, "this app has no manifest to join the agent with") }
        agentVersion = try await bus.call(.join(app: manifest.appID, team: manifest.teamIdentifier, types: manifest.activityTypes),
                                          timeout: callTimeout)
        isJoined = true
        lastSent = nil
        sendAdvertisement()
        let handed = handedBeforeJoined
        handedBeforeJoined = []
        for activity in handed { Application.shared.continueNearbyActivity(activity) }
        let nearby = try await bus.call(.getNearby, timeout: callTimeout)
        Application.shared.updateNearbyActivities(AgentInterface.nearbyList(from: nearby))
    }

    /// Lets go of the bus and what it carried: not joined, nothing held or nearby.
    func disconnect() {
        if let bus {
            if let nearbySubscription { bus.unsubscribe(nearbySubscription) }
            for subscription in pairingSubscriptions { bus.unsubscribe(subscription) }
            bus.close()
        }
        nearbySubscription = nil
        pairingSubscriptions = []
        bus = nil
        isJoined = false
        lastSent = nil
        held = nil
        handedBeforeJoined = []
        Application.shared.updateNearbyActivities([])
    }
}
