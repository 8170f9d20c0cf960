import BatonLoop
import CBatonStreams
import CGLib
import Foundation

/// A TLS 1.3 connection on the GLib loop (GIO, GnuTLS through glib-networking), both ends
/// presenting a certificate, each checking the other's under a `CertificatePolicy` during the
/// handshake (`CertificateCheck`): the one channel type of Baton.
///
/// Between devices of the group (links, which carry continuation streams too) each end presents
/// its device certificate and takes only a current device of the group; then the ALPN protocol
/// must be `baton/1` (D-Bus peer-to-peer over the stream: `PeerBus`), and the TLS
/// version 1.3, or the connection is closed before any application data. A pairing connection
/// (`PairingChannel`, ALPN `baton-pair/1`) takes any P-256 certificate: the code the people
/// compare decides.
///
/// Connecting, accepting, sending and receiving are on the main actor, so GIO starts them on the
/// app's loop (`MainLoop.context`) and the certificate check runs there too.
public final class SecureChannel: @unchecked Sendable {
    /// The ALPN protocol id of a device link (D-Bus); its version changes with incompatible
    /// protocol versions.
    public static let alpn = "baton/1"
    /// The ALPN protocol id of a pairing connection.
    static let pairingALPN = "baton-pair/1"

    /// The ALPN protocol negotiated: `alpn` (`baton-pair/1` for pairing).
    public let applicationProtocol: String

    /// Who the peer proved to be in the handshake, under the channel's policy.
    let peer: VerifiedPeer
    /// The peer device's identifier, its verified certificate's common name (opaque: the name
    /// to show is `DeviceIdentity.deviceName(of:)`); empty on a pairing connection.
    public var peerIdentifier: String {
        if case .member(let identifier, _) = peer { identifier } else { "" }
    }
    /// The serial number (hex) of the peer's certificate, for revocation; empty on a pairing
    /// connection.
    public var peerSerial: String {
        if case .member(_, let serial) = peer { serial } else { "" }
    }
    /// The peer's IP address: as the socket sees it, or over an ICE stream the address of the
    /// remote candidate libnice selected (a relay's address on a relayed path).
    public var peerHost: String? { ice?.remoteHost ?? socketPeerHost }
    /// The peer's IP address as the socket sees it; nil over an ICE stream.
    private let socketPeerHost: String?
    /// The ICE stream under the TLS connection, for a link beyond one network
    /// (`open(over:role:identity:credential:)`); nil over TCP. Set once, before the channel is
    /// handed out.
    private(set) var ice: IceStream?
    let stream: UnsafeMutablePointer<GIOStream>
    let isServer: Bool
    /// For a connection a `TLSListener` accepted: its wait to authenticate, ended by
    /// `authenticated()` (or its deadline).
    let pending: PendingConnection?

    private init(peer: VerifiedPeer, peerHost: String?, applicationProtocol: String,
                 stream: UnsafeMutablePointer<GIOStream>, isServer: Bool, pending: PendingConnection?) {
        self.applicationProtocol = applicationProtocol
        self.peer = peer
        self.socketPeerHost = peerHost
        self.stream = stream
        self.isServer = isServer
        self.pending = pending
    }

    /// The accepted connection has finished authenticating (D-Bus is set up on a link, the
    /// token has arrived on a stream, the hello on a pairing): the listener's deadline no
    /// longer applies to it.
    @MainActor
    public func authenticated() { pending?.authenticated() }

    /// False once the listener's deadline has shut an accepted connection down.
    @MainActor
    var isWithinDeadline: Bool { pending?.isWaiting ?? true }

    /// Set once D-Bus runs on the stream: from then on GDBus (on its own worker thread) owns
    /// closing it, and closing it here too would race with it.
    private let handedToBus = ManagedFlag()

    func handToBus() { handedToBus.set() }

    deinit {
        if !handedToBus.isSet { Self.closeAsynchronously(stream) }
        // The ICE stream lives on until the TLS connection's close in the background frees it:
        // its watch of the path goes now, with the channel that read it.
        ice?.stopWatching()
        g_object_unref(stream)
    }

    /// Closes the connection (once D-Bus runs on it, close the `PeerBus` instead). It never
    /// waits on the peer: the TLS close is sent in the background (GIO's close runs in a
    /// worker thread), so a peer that stopped reading cannot freeze the caller.
    public func close() {
        if !handedToBus.isSet { Self.closeAsynchronously(stream) }
        // Closed by its owner: it no longer waits for a place among its listener's connections.
        if let pending { Task { @MainActor in pending.released() } }
    }

    /// Shuts the TCP connection (or the ICE stream's pseudo-TCP) down both ways at once, without
    /// a TLS close: reads and writes waiting on it fail now, and the peer reads the end of the
    /// stream. For a peer that has stopped (a deadline passed); `close()` is the polite way.
    public func abort() {
        if let ice {
            ice.shutDown()
        } else {
            guard Self.shutDown(stream) else { return }
        }
        close()
    }

    /// Records the ICE stream under this channel (`open(over:role:identity:credential:)`, once,
    /// before the channel is handed out): close, abort and `peerHasGone` then act on it.
    func attach(_ ice: IceStream) { self.ice = ice }

    /// Shuts the TCP connection (or the ICE stream) down both ways, like `abort()`, and gives up
    /// its place among its listener's connections at once (the TLS close comes with the
    /// channel's end).
    @MainActor
    func drop() {
        if let ice { ice.shutDown() } else { Self.shutDown(stream) }
        pending?.drop()
    }

    /// Ends this side's writing in the background (the peer reads its end; nothing waits on
    /// it) and gives up its place among its listener's connections.
    @MainActor
    func hangUp() {
        g_output_stream_close_async(g_io_stream_get_output_stream(stream), G_PRIORITY_DEFAULT, nil, nil, nil)
        pending?.released()
    }

    /// Whether the peer has hung up or reset the connection: a look at the socket that reads
    /// nothing (a FIN or a reset is in; data waiting means it is still there); over an ICE
    /// stream, its state (closed, or its path failed).
    var peerHasGone: Bool {
        if let ice { return ice.hasEnded }
        guard let base = baton_tls_base_socket(stream) else { return true }
        var byte: UInt8 = 0
        let count = recv(g_socket_get_fd(base.assumingMemoryBound(to: GSocket.self)), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    static func closeAsynchronously(_ stream: UnsafeMutablePointer<GIOStream>) {
        g_io_stream_close_async(stream, G_PRIORITY_DEFAULT, nil, nil, nil)
    }

    /// Shuts the TCP socket under `stream` down both ways; false if it has none.
    @discardableResult
    static func shutDown(_ stream: UnsafeMutablePointer<GIOStream>) -> Bool {
        guard let base = baton_tls_base_socket(stream) else { return false }
        g_socket_shutdown(base.assumingMemoryBound(to: GSocket.self), 1, 1, nil)
        return true
    }

    /// The connection's TLS exporter (RFC 9266), 32 bytes: what a pairing's code is derived from.
    func exporter() throws(GLibError) -> Data {
        let array = g_byte_array_new()!
        defer { g_byte_array_unref(array) }
        var error: UnsafeMutablePointer<GError>?
        guard g_tls_connection_get_channel_binding_data(gCast(stream), G_TLS_CHANNEL_BINDING_TLS_EXPORTER, array, &error) != 0 else {
            throw GLibError(consuming: error!)
        }
        guard array.pointee.len == 32 else {
            throw GLibError(domain: "baton", code: 0, message: "the exporter is \(array.pointee.len) bytes, not 32")
        }
        return Data(bytes: array.pointee.data, count: 32)
    }

    /// Writes all of `data` (`g_output_stream_write_all_async`).
    @MainActor
    public func send(_ data: Data) async throws(TransportError) {
        let output = SendablePointer(g_io_stream_get_output_stream(stream)!)
        let bytes = SendableBytes(data)
        defer { withExtendedLifetime(bytes) {} }  // GIO reads the buffer until the write finishes
        do {
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_output_stream_write_all_async(output.pointer, bytes.pointer, gsize(bytes.count), G_PRIORITY_DEFAULT,
                                                cancellable, callback, userData)
            } finish: { result, error in
                g_output_stream_write_all_finish(output.pointer, result, nil, error) != 0 ? true : nil
            }
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }

    /// Ends this side's writing (TLS close_notify on the write direction): the peer's reads
    /// reach their end, and it can still answer.
    @MainActor
    public func finishWriting() async throws(TransportError) {
        let output = SendablePointer(g_io_stream_get_output_stream(stream)!)
        do {
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_output_stream_close_async(output.pointer, G_PRIORITY_DEFAULT, cancellable, callback, userData)
            } finish: { result, error in
                g_output_stream_close_finish(output.pointer, result, error) != 0 ? true : nil
            }
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }

    /// Reads up to `maxLength` bytes as soon as some arrive; empty when the peer has closed.
    @MainActor
    public func receive(maxLength: Int) async throws(TransportError) -> Data {
        do {
            return try await GIOCalls.read(from: g_io_stream_get_input_stream(stream)!, maxLength: maxLength)
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }

    /// How long a client waits for a listening peer's admission gate (its nonce, then its verdict).
    public static let admissionDeadline: Duration = .seconds(5)
    /// How long a connecting side's TLS handshake may take (an accepted connection has its
    /// listener's deadline instead): then its socket is shut down and the handshake fails.
    static let handshakeDeadline: Duration = .seconds(10)

    /// Connects to a peer at `host:port` and proves both identities, for a device link (ALPN `alpn`).
    ///
    /// First the admission gate (`AdmissionGate`), with the identity's discovery key: if the
    /// peer refuses it and the identity holds the key it had before its last one
    /// (`DeviceIdentity.previousDiscoveryKey`), a second connection proves that one, so a
    /// device that missed a rotation of the key is still reached (and then gets the new key
    /// over the link). An identity without a discovery key connects without the gate.
    @MainActor
    public static func connect(host: String, port: UInt16, identity: DeviceIdentity,
                               credential: TLSCredential) async throws(TransportError) -> SecureChannel {
        var keys = [identity.discoveryKey].compactMap { $0 }
        if let previous = identity.previousDiscoveryKey, previous != identity.discoveryKey { keys.append(previous) }
        var attempt = 0
        while true {
            let connection = try await openTCP(host: host, port: port)
            defer { g_object_unref(connection) }
            if attempt < keys.count {
                do throws(TransportError) {
                    try await AdmissionGate.pass(connection, key: keys[attempt], deadline: admissionDeadline)
                } catch .admissionRefused where attempt + 1 < keys.count && !Task.isCancelled {
                    attempt += 1
                    g_io_stream_close(gCast(connection), nil, nil)  // only a socket: closing never waits
                    continue
                }
            }
            return try await connect(over: connection, policy: .groupMember(identity: identity, credential: credential),
                                     offering: linkProtocols)
        }
    }

    /// Wraps a TCP connection `openTCP` made as the TLS client under `policy`, offering
    /// `protocols`, and proves both identities within `handshakeDeadline`.
    @MainActor
    static func connect(over connection: UnsafeMutablePointer<GSocketConnection>, policy: CertificatePolicy,
                        offering protocols: ProtocolList) async throws(TransportError) -> SecureChannel {
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_client_connection_new(gCast(connection), &error) else {  // no system CAs: see shim.h
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        g_tls_connection_set_certificate(gCast(tls), policy.certificate)
        return try await secure(tls, policy: policy, isServer: false, peerHost: remoteHost(connection), offering: protocols)
    }

    /// How long a TCP connect may wait for the peer's answer. A firewall that drops the port
    /// gives none, and the kernel alone would retry for about two minutes.
    nonisolated static let connectTimeout: UInt32 = 5

    /// A TCP connection to `host:port`, straight (no proxy), within `connectTimeout`, its
    /// socket set up for a link (`configureSocket`).
    @MainActor
    static func openTCP(host: String, port: UInt16) async throws(TransportError) -> UnsafeMutablePointer<GSocketConnection> {
        let client = g_socket_client_new()!
        defer { g_object_unref(client) }
        g_socket_client_set_timeout(client, connectTimeout)
        // Straight to the device: a desktop's HTTP proxy has no business with links between
        // the user's own devices (and resolving it costs a GSettings or libproxy lookup).
        g_socket_client_set_enable_proxy(client, 0)
        let address = PeerAddress(host: host, port: port).description  // brackets an IPv6 host
        do {
            let connection = try await GIOAsync.call { cancellable, callback, userData in
                g_socket_client_connect_to_host_async(client, address, port, cancellable, callback, userData)
            } finish: { result, error in
                g_socket_client_connect_to_host_finish(client, result, error).map(SendablePointer.init)
            }.pointer
            // The client's timeout stays on the socket it made: off again for the link, whose
            // own deadlines, keepalive and TCP_USER_TIMEOUT bound it (`configureSocket`).
            g_socket_set_timeout(g_socket_connection_get_socket(connection), 0)
            configureSocket(connection)
            return connection
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }

    /// Wraps an accepted TCP connection as the TLS server under `policy` (its certificate, its
    /// ALPN ids), asks for the peer's certificate and proves both identities; `pending` is the
    /// listener's wait for it, whose deadline bounds the handshake.
    @MainActor
    static func accept(_ connection: UnsafeMutablePointer<GSocketConnection>, policy: CertificatePolicy,
                       pending: PendingConnection? = nil) async throws(TransportError) -> SecureChannel {
        configureSocket(connection)
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_server_connection_new(gCast(connection), policy.certificate, &error) else {  // no system CAs
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        baton_tls_require_client_certificate(gCast(tls))
        return try await secure(tls, policy: policy, isServer: true, peerHost: remoteHost(connection), offering: policy.serverProtocols,
                                pending: pending)
    }

    /// TCP keepalive after 10 s idle, probing every 3 s, dropping after 3 unanswered probes,
    /// and a 20 s bound on unacknowledged data (`TCP_USER_TIMEOUT`): a peer that vanished, or a
    /// link that went down, ends the connection with an error within about 20 s instead of the
    /// system's two hours. And `TCP_NODELAY`: the handshake's and the protocol's small
    /// messages go out at once instead of waiting on Nagle's algorithm for the peer's delayed
    /// acknowledgement (40 ms on Linux). And a wake-up of the app's loop when the socket is
    /// freed on a GIO thread (GDBus's worker, a TLS close), so a loop waiting for the link's
    /// descriptor to go sees it go.
    static func configureSocket(_ connection: UnsafeMutablePointer<GSocketConnection>) {
        let socket = g_socket_connection_get_socket(connection)
        MainLoop.wakeOnRelease(of: UnsafeMutableRawPointer(socket!))
        g_socket_set_keepalive(socket, 1)
        for (option, value) in [(TCP_KEEPIDLE, 10), (TCP_KEEPINTVL, 3), (TCP_KEEPCNT, 3), (TCP_USER_TIMEOUT, 20_000), (TCP_NODELAY, 1)] {
            g_socket_set_option(socket, gint(IPPROTO_TCP), gint(option), gint(value), nil)
        }
    }

    static func remoteHost(_ connection: UnsafeMutablePointer<GSocketConnection>) -> String? {
        guard let address = g_socket_connection_get_remote_address(connection, nil) else { return nil }
        defer { g_object_unref(address) }
        guard let host = g_inet_socket_address_get_address(gCast(address)), let text = g_inet_address_to_string(host) else { return nil }
        defer { g_free(text) }
        return plainHost(String(cString: text))
    }

    /// `host` with an IPv4-mapped IPv6 address (`::ffff:192.0.2.7`, how a socket listening on
    /// every interface sees an IPv4 peer) written as the IPv4 address it is, so one device has
    /// one address wherever it is compared (links, per-address caps, discovery).
    static func plainHost(_ host: String) -> String {
        let prefix = "::ffff:"
        guard host.lowercased().hasPrefix(prefix) else { return host }
        let rest = String(host.dropFirst(prefix.count))
        return rest.split(separator: ".").count == 4 && !rest.contains(":") ? rest : host
    }

    /// The handshake and the checks after it, shared by both sides and every policy. Takes
    /// ownership of `tls`. glib-networking emits `accept-certificate` on the handshake's
    /// context: the app's loop. A client (no `pending`) has no listener's deadline: its own
    /// (`handshakeDeadline`) bounds the handshake.
    @MainActor
    static func secure(_ tls: UnsafeMutablePointer<GIOStream>, policy: CertificatePolicy, isServer: Bool,
                               peerHost: String?, offering protocols: ProtocolList,
                               pending: PendingConnection? = nil) async throws(TransportError) -> SecureChannel {
        let connection: UnsafeMutablePointer<GTlsConnection> = gCast(tls)
        let owned = SendablePointer(tls)
        // Finalized on a GIO thread, the TLS connection closes descriptors of its own (its
        // operations' wake-up eventfd) after its socket has gone: the loop hears of that too.
        MainLoop.wakeOnRelease(of: UnsafeMutableRawPointer(tls))
        g_tls_connection_set_database(connection, nil)  // never the system CAs: the policy decides
        protocols.names.withUnsafeBufferPointer { g_tls_connection_set_advertised_protocols(connection, $0.baseAddress) }
        let check = CertificateCheck(policy: policy)
        let handler = check.attach(to: connection)
        let deadline = pending == nil ? MainLoop.after(handshakeDeadline) { shutDown(owned.pointer) } : nil
        do {
            defer {
                CertificateCheck.detach(handler, from: connection)
                deadline?.cancel()
            }
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_tls_connection_handshake_async(gCast(owned.pointer), G_PRIORITY_DEFAULT, cancellable, callback, userData)
            } finish: { result, error in
                g_tls_connection_handshake_finish(gCast(owned.pointer), result, error) != 0 ? true : nil
            }
        } catch {
            closeAsynchronously(tls)
            g_object_unref(tls)
            if case .failure(let refusal)? = check.result { throw .peerRejected(refusal) }
            throw .handshakeFailed(GLibError(error))
        }
        let fail = { (reason: TransportError) -> TransportError in
            closeAsynchronously(tls)
            g_object_unref(tls)
            return reason
        }
        guard case .success(let peer)? = check.result else {
            throw fail(.peerRejected(.peerNotInGroup(reason: "its certificate was never presented for checking")))
        }
        let version = g_tls_connection_get_protocol_version(connection)
        guard version == G_TLS_PROTOCOL_VERSION_TLS_1_3 else { throw fail(.tlsVersionTooOld(Int(version.rawValue))) }
        let negotiated = g_tls_connection_get_negotiated_protocol(connection).map { String(cString: $0) }
        guard let negotiated, protocols.contains(negotiated) else { throw fail(.wrongProtocol(negotiated: negotiated)) }
        return SecureChannel(peer: peer, peerHost: peerHost, applicationProtocol: negotiated, stream: tls, isServer: isServer,
                             pending: pending)
    }
}

/// What a connecting side offers: one protocol.
private let linkProtocols = ProtocolList([SecureChannel.alpn])
