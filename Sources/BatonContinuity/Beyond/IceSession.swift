import BatonLoop
import CBatonStreams
import CGLib
import CNice
import Foundation

/// One ICE session with one peer device on the app's loop: a libnice agent in reliable mode
/// (pseudo-TCP over the selected UDP path), one stream of one component, whose connected
/// `IceStream` carries a device link like a TCP connection on the LAN (docs/PROTOCOL.md, 7.1).
///
/// Use: `localDescription()` gathers this side's candidates (host, server-reflexive through
/// the STUN server, relayed through the TURN servers) within the configuration's deadline; the
/// two sides exchange descriptions (sealed, through the broker); `connect(remote:deadline:)`
/// runs the connectivity checks and gives the stream once a pair is selected. The controlling
/// side (`Role.for(local:remote:)`) is the TLS client of the link over it
/// (`SecureChannel.open(over:role:identity:credential:)`). `close()` disconnects every signal
/// handler; the agent itself lives on while a stream it gave is alive (`IceStream` holds it),
/// and is freed with the last of them.
@MainActor
public final class IceSession {
    /// Which end of the connectivity checks this side is (RFC 8445 6.1.1). The controlling side
    /// nominates the pair, and is the TLS client of the link over the stream.
    public enum Role: Sendable, Equatable {
        /// Nominates the pair; the TLS client.
        case controlling
        /// Takes the nominated pair; the TLS server.
        case controlled

        /// The role of the device `local` with the peer `remote`: the device whose identifier
        /// sorts first controls — the rule by which two devices that dial each other at once
        /// keep the connection the first one dialed (`LinkTable`).
        public static func `for`(local: String, remote: String) -> Role {
            local < remote ? .controlling : .controlled
        }
    }

    /// The configuration candidates are gathered with.
    public let configuration: IceConfiguration
    /// This side's role in the checks (and so in TLS).
    public let role: Role
    /// The path of the selected candidate pair; nil before one is selected. libnice does not
    /// report the pair's round-trip time.
    public private(set) var selectedPath: IcePath?
    /// The address of the selected pair's remote candidate; nil before one is selected.
    private(set) var selectedRemoteHost: String?

    /// The most bytes of the peer's a stream keeps before its first read (`IceStream`).
    static let earlyBytesCap = 64 * 1024

    private let agent: OpaquePointer  // NiceAgent *, one reference
    private let streamID: guint
    /// The component's reliable stream (one reference), made at once.
    private let niceStream: UnsafeMutablePointer<GIOStream>
    /// The stream `connect(remote:deadline:)` gives (one reference): `niceStream`'s output, and
    /// its input read by a pump (`pumpedInput`) until its first reader comes. libnice handles the
    /// component's packets only while someone reads it, so the pump reads it from the start:
    /// through gathering and the checks, and after a pair is selected until the link reads,
    /// answering the peer's checks (which its own connect waits for) and keeping any byte of its
    /// that comes first.
    private let ioStream: UnsafeMutablePointer<GIOStream>
    /// The input of `ioStream` (`baton_pumped_input_stream_new`; `ioStream` holds it).
    private let pumpedInput: UnsafeMutableRawPointer
    /// Whether `connect(remote:deadline:)` gave the stream: its pump is the stream's then.
    private var handedOver = false
    private var handlers: [gulong] = []
    private var gathering: Task<Result<IceDescription, IceError>, Never>?
    private var gatheringDone = false
    private var componentState: NiceComponentState = NICE_COMPONENT_STATE_DISCONNECTED
    private var isClosed = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A session with a new agent on the app's loop (`MainLoop.context`) as `role`, not
    /// gathering yet. The role is set before any packet comes: a peer's check can arrive before
    /// `connect(remote:deadline:)`.
    public init(configuration: IceConfiguration, role: Role) throws(IceError) {
        self.configuration = configuration
        self.role = role
        guard let agent = baton_nice_agent_new(MainLoop.context.gContext) else { throw .agentFailed("nice_agent_new_reliable") }
        self.agent = agent
        baton_nice_set_force_relay(agent, configuration.relayOnly ? 1 : 0)
        baton_nice_set_controlling(agent, role == .controlling ? 1 : 0)
        for address in configuration.hostAddresses where baton_nice_add_local_address(agent, address) == 0 {
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw .agentFailed("nice_agent_add_local_address (\(PrintableText.escaped(address)) is not an IP address)")
        }
        streamID = nice_agent_add_stream(agent, 1)
        guard streamID != 0, let niceStream = nice_agent_get_io_stream(agent, streamID, 1) else {
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw .agentFailed("nice_agent_add_stream / nice_agent_get_io_stream")
        }
        guard let pumped = baton_pumped_input_stream_new(g_io_stream_get_input_stream(niceStream), UnsafeMutableRawPointer(MainLoop.context.gContext),
                                                         Self.earlyBytesCap) else {
            g_object_unref(niceStream)
            g_object_unref(UnsafeMutableRawPointer(agent))
            throw .agentFailed("the component's input is not pollable")
        }
        self.niceStream = niceStream
        pumpedInput = pumped
        ioStream = g_simple_io_stream_new(pumped.assumingMemoryBound(to: GInputStream.self), g_io_stream_get_output_stream(niceStream))
        g_object_unref(pumped)  // held by `ioStream`
        // Held by the handlers only: released with the last of them.
        let signals = IceSignals()
        signals.session = self
        handlers = [
            signals.connect(agent, "candidate-gathering-done", unsafeBitCast(gatheringDoneTrampoline, to: GCallback.self)),
            signals.connect(agent, "component-state-changed", unsafeBitCast(stateChangedTrampoline, to: GCallback.self)),
            signals.connect(agent, "new-selected-pair-full", unsafeBitCast(selectedPairTrampoline, to: GCallback.self)),
        ]
    }

    isolated deinit {
        // Unless `close()` ran, the handlers and the pump go now (the handlers hold only a weak
        // reference to the session).
        for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(agent), handler) }
        stopPumpUnlessHandedOver()
        g_object_unref(ioStream)
        g_object_unref(niceStream)
        g_object_unref(UnsafeMutableRawPointer(agent))
    }

    /// Ends the pump unless the stream was given: then it is the stream's, and ends at its first
    /// read (or its close, or when it is freed).
    private func stopPumpUnlessHandedOver() {
        if !handedOver { baton_pumped_input_stream_stop(pumpedInput) }
    }

    /// Ends the session: every signal handler is disconnected (their boxes released), and every
    /// wait ends with `IceError.closed`. A stream it gave stays usable until it is closed.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        for handler in handlers { g_signal_handler_disconnect(UnsafeMutableRawPointer(agent), handler) }
        handlers = []
        stopPumpUnlessHandedOver()
        wake()
    }

    /// This side's description: gathers the candidates (the first call; later and concurrent
    /// calls give the same outcome), within `configuration.gatheringDeadline`. Throws
    /// `noRelayCandidate` when only relayed candidates are asked for and the TURN server gave
    /// none (a wrong or expired credential, say), `noCandidates` when nothing was gathered.
    public func localDescription() async throws(IceError) -> IceDescription {
        let task: Task<Result<IceDescription, IceError>, Never>
        if let gathering {
            task = gathering
        } else {
            task = Task { @MainActor in
                do throws(IceError) { return .success(try await self.gather()) } catch { return .failure(error) }
            }
            gathering = task
        }
        return try await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }.get()
    }

    private func gather() async throws(IceError) -> IceDescription {
        guard !isClosed else { throw .closed }
        let deadline = configuration.gatheringDeadline
        let timedOut = TimeoutFlag()
        let timer = MainLoop.after(deadline) { [weak self] in timedOut.fire(); self?.wake() }
        defer { timer.cancel() }
        if let stun = configuration.stunServer {
            let ip = try await Self.resolve(stun.host, timedOut: timedOut, deadline: deadline)
            baton_nice_set_stun_server(agent, ip, guint(stun.port))
        }
        for relay in configuration.turnServers {
            let ip = try await Self.resolve(relay.host, timedOut: timedOut, deadline: deadline)
            guard nice_agent_set_relay_info(agent, streamID, 1, ip, guint(relay.port), relay.username, relay.password,
                                            relay.transport.niceType) != 0 else {
                throw .agentFailed("nice_agent_set_relay_info")
            }
        }
        guard !isClosed else { throw .closed }
        guard nice_agent_gather_candidates(agent, streamID) != 0 else { throw .agentFailed("nice_agent_gather_candidates") }
        await wait { gatheringDone || isClosed || timedOut.isSet }
        guard !isClosed else { throw .closed }
        guard gatheringDone else { throw .gatheringTimedOut(deadline) }

        var ufragPointer: UnsafeMutablePointer<gchar>?, pwdPointer: UnsafeMutablePointer<gchar>?
        guard nice_agent_get_local_credentials(agent, streamID, &ufragPointer, &pwdPointer) != 0,
              let ufragPointer, let pwdPointer else { throw .agentFailed("nice_agent_get_local_credentials") }
        let ufrag = String(cString: ufragPointer), pwd = String(cString: pwdPointer)
        g_free(ufragPointer)
        g_free(pwdPointer)
        var lines: [String] = []
        if let strv = baton_nice_local_candidate_lines(agent, streamID) {
            var index = 0
            while let line = strv[index] { lines.append(String(cString: line)); index += 1 }
            g_strfreev(strv)
        }
        // Only lines of the shape the peer takes (libnice makes no other), relayed ones only if
        // asked, at most the cap.
        lines = lines.filter { line in
            guard let type = IceDescription.candidateType(line) else { return false }
            return !configuration.relayOnly || type == "relay"
        }
        lines = Array(lines.prefix(IceDescription.maximumCandidates))
        guard !lines.isEmpty else { throw configuration.relayOnly ? .noRelayCandidate : .noCandidates }
        return try IceDescription(ufrag: ufrag, pwd: pwd, candidates: lines)
    }

    /// Runs the connectivity checks with the peer's description, and gives the connected stream
    /// once a candidate pair is selected (`selectedPath` says which), within `deadline`. The
    /// peer may need this side's answers after that (the controlled side selects a pair only
    /// once its own check of it is answered): until the stream's first read, it reads itself, so
    /// the checks go on and any byte of the peer's that comes first waits for the reader.
    /// Gathers this side's candidates first (within their own deadline) if
    /// `localDescription()` was not called. Throws `connectivityFailed` when every pair failed,
    /// `connectTimedOut` at the deadline, `closed` if the session closes (or the task is
    /// cancelled, which closes it).
    public func connect(remote: IceDescription, deadline: Duration) async throws(IceError) -> IceStream {
        try remote.validate()  // a description built without its initializer's check cannot pass either
        _ = try await localDescription()
        guard !isClosed else { throw .closed }
        let timedOut = TimeoutFlag()
        let timer = MainLoop.after(deadline) { [weak self] in timedOut.fire(); self?.wake() }
        defer { timer.cancel() }
        let added = Self.withCStrings(remote.candidates) { lines in
            baton_nice_set_remote(agent, streamID, remote.ufrag, remote.pwd, lines.baseAddress, Int32(lines.count))
        }
        guard added > 0 else { throw .invalidDescription("libnice took none of its candidates") }
        // A selected pair is enough (its pseudo-TCP connects at once); the rest of the checks go
        // on, the stream reading itself until its reader comes.
        await wait { selectedPath != nil || componentState == NICE_COMPONENT_STATE_FAILED || isClosed || timedOut.isSet }
        guard !isClosed else { throw .closed }
        guard selectedPath != nil else {
            throw componentState == NICE_COMPONENT_STATE_FAILED ? .connectivityFailed : .connectTimedOut(deadline)
        }
        handedOver = true
        return IceStream(stream: ioStream, niceStream: niceStream, agent: agent, streamID: streamID, path: selectedPath ?? .host,
                         remoteHost: selectedRemoteHost)
    }

    // MARK: Signals (on the app's loop)

    fileprivate func gatheringFinished(stream: guint) {
        guard stream == streamID else { return }
        gatheringDone = true
        wake()
    }

    fileprivate func stateChanged(stream: guint, component: guint, state: guint) {
        guard stream == streamID, component == 1 else { return }
        componentState = NiceComponentState(rawValue: state)
        wake()
    }

    fileprivate func pairSelected(stream: guint, local: Int32, remote: Int32, remoteHost: String?) {
        guard stream == streamID else { return }
        selectedPath = IcePath(localType: local, remoteType: remote)
        selectedRemoteHost = remoteHost
        wake()
    }

    // MARK: Waiting

    /// Waits on the loop until `condition` holds; rechecked at each `wake()` (a signal, the
    /// deadline's timer, `close()`, the task's cancellation).
    private func wait(until condition: () -> Bool) async {
        while !condition() && !Task.isCancelled {
            await withTaskCancellationHandler {
                await withCheckedContinuation { waiters.append($0) }
            } onCancel: {
                Task { @MainActor [weak self] in self?.wake() }
            }
        }
        if Task.isCancelled { close() }
    }

    private func wake() {
        let woken = waiters
        waiters = []
        for waiter in woken { waiter.resume() }
    }

    /// `host` as an IP address libnice takes: itself if it is one, else its first address
    /// (GIO's resolver), within the gathering deadline.
    private static func resolve(_ host: String, timedOut: TimeoutFlag, deadline: Duration) async throws(IceError) -> String {
        if g_hostname_is_ip_address(host) != 0 { return host }
        let resolver = g_resolver_get_default()!
        defer { g_object_unref(resolver) }
        let resolving = Task { @MainActor () -> String? in
            let list = try? await GIOAsync.call { cancellable, callback, userData in
                g_resolver_lookup_by_name_async(resolver, host, cancellable, callback, userData)
            } finish: { result, error in
                g_resolver_lookup_by_name_finish(resolver, result, error).map(SendableList.init)
            }
            guard let list else { return nil }
            defer { g_resolver_free_addresses(list.pointer) }
            guard let first = list.pointer.pointee.data, let text = g_inet_address_to_string(first.assumingMemoryBound(to: GInetAddress.self)) else {
                return nil
            }
            defer { g_free(text) }
            return String(cString: text)
        }
        var expired = false
        let timer = MainLoop.after(deadline) { expired = true; resolving.cancel() }
        defer { timer.cancel() }
        let address = await withTaskCancellationHandler { await resolving.value } onCancel: { resolving.cancel() }
        guard !expired, !timedOut.isSet, !Task.isCancelled else { throw .gatheringTimedOut(deadline) }
        guard let address else { throw .unresolvableServer(host) }
        return address
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer(body)
    }
}

/// A flag a deadline's timer sets.
@MainActor
private final class TimeoutFlag {
    private(set) var isSet = false
    func fire() { isSet = true }
}

/// A `GList *` GIO returned, that may cross into the finish closure's result.
private struct SendableList: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GList>
    init(_ pointer: UnsafeMutablePointer<GList>) { self.pointer = pointer }
}

extension IceRelay.Transport {
    /// libnice's relay type.
    var niceType: NiceRelayType {
        switch self {
        case .udp: NICE_RELAY_TYPE_TURN_UDP
        case .tcp: NICE_RELAY_TYPE_TURN_TCP
        case .tls: NICE_RELAY_TYPE_TURN_TLS
        }
    }
}

/// The user data of an `IceSession`'s signal handlers: a weak reference to the session, so the
/// agent's handlers never keep it alive; released when a handler is disconnected.
private final class IceSignals: CallbackBox, @unchecked Sendable {
    weak var session: IceSession?

    func connect(_ agent: OpaquePointer, _ signal: String, _ handler: GCallback) -> gulong {
        g_signal_connect_data(UnsafeMutableRawPointer(agent), signal, handler, retainedOpaque(), CallbackBox.closureNotify,
                              GConnectFlags(0))
    }
}

/// `void candidate-gathering-done(NiceAgent *, guint stream_id, gpointer)`.
private let gatheringDoneTrampoline: @convention(c) (OpaquePointer?, guint, UnsafeMutableRawPointer?) -> Void = { _, stream, data in
    guard let data else { return }
    let signals = IceSignals.borrow(data)
    MainActor.assumeIsolated { signals.session?.gatheringFinished(stream: stream) }
}

/// `void component-state-changed(NiceAgent *, guint stream_id, guint component_id, guint state, gpointer)`.
private let stateChangedTrampoline: @convention(c) (OpaquePointer?, guint, guint, guint, UnsafeMutableRawPointer?) -> Void = {
    _, stream, component, state, data in
    guard let data else { return }
    let signals = IceSignals.borrow(data)
    MainActor.assumeIsolated { signals.session?.stateChanged(stream: stream, component: component, state: state) }
}

/// `void new-selected-pair-full(NiceAgent *, guint stream_id, guint component_id, NiceCandidate *local,
/// NiceCandidate *remote, gpointer)`.
private let selectedPairTrampoline: @convention(c) (
    OpaquePointer?, guint, guint, UnsafeMutablePointer<NiceCandidate>?, UnsafeMutablePointer<NiceCandidate>?, UnsafeMutableRawPointer?
) -> Void = { _, stream, _, local, remote, data in
    guard let data else { return }
    let signals = IceSignals.borrow(data)
    let localType = baton_nice_candidate_type(local), remoteType = baton_nice_candidate_type(remote)
    let remoteHost = remote.flatMap(candidateHost)
    MainActor.assumeIsolated { signals.session?.pairSelected(stream: stream, local: localType, remote: remoteType, remoteHost: remoteHost) }
}

/// The IP address of `candidate` (`nice_address_to_string`), an IPv4-mapped IPv6 address as
/// the IPv4 address it is (`SecureChannel.plainHost`).
private func candidateHost(_ candidate: UnsafeMutablePointer<NiceCandidate>) -> String? {
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    nice_address_to_string(&candidate.pointee.addr, &text)
    let host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return host.isEmpty ? nil : SecureChannel.plainHost(host)
}
