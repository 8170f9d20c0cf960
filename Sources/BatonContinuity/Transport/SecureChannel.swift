import BatonLoop
import CBatonStreams
import CGLib
import Foundation

/// A mutually authenticated TLS 1.3 connection to another device of the group, on the GLib
/// loop (GIO, GnuTLS through glib-networking).
///
/// Both ends present their device certificate; each checks the other's in `PeerVerification`
/// during the handshake. Then the ALPN protocol must be `baton/1` and the TLS version 1.3,
/// or the connection is closed before any application data. Messages travel as D-Bus
/// peer-to-peer over the TLS stream (`openBus`): GLib's framing and GVariant marshalling.
///
/// Connecting, accepting, sending and receiving are on the main actor, so GIO starts them on the
/// app's loop (`MainLoop.context`) and the certificate check runs there too.
public final class SecureChannel: @unchecked Sendable {
    /// The ALPN protocol id of a device link (D-Bus); its version changes with incompatible
    /// protocol versions.
    public static let alpn = "baton/1"
    /// The ALPN protocol id of a continuation stream connection, on the same port.
    public static let streamALPN = "baton-stream/1"

    /// The ALPN protocol negotiated: `alpn` or `streamALPN`.
    public let applicationProtocol: String

    /// The peer device's identifier, its verified certificate's common name (opaque: the name
    /// to show is `DeviceIdentity.deviceName(of:)`).
    public let peerIdentifier: String
    /// The serial number (hex) of the peer's certificate, for revocation.
    public let peerSerial: String
    /// The peer's IP address, as the socket sees it.
    public let peerHost: String?
    let stream: UnsafeMutablePointer<GIOStream>
    let isServer: Bool
    /// For a connection a `SecureListener` accepted: its wait to authenticate, ended by
    /// `authenticated()` (or its deadline).
    private let pending: PendingConnection?

    private init(peerIdentifier: String, peerSerial: String, peerHost: String?, applicationProtocol: String,
                 stream: UnsafeMutablePointer<GIOStream>, isServer: Bool, pending: PendingConnection?) {
        self.applicationProtocol = applicationProtocol
        self.peerIdentifier = peerIdentifier
        self.peerSerial = peerSerial
        self.peerHost = peerHost
        self.stream = stream
        self.isServer = isServer
        self.pending = pending
    }

    /// The accepted connection has finished authenticating (D-Bus is set up on a link, the
    /// token has arrived on a stream): the listener's deadline no longer applies to it.
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

    /// Shuts the TCP connection down both ways at once, without a TLS close: reads and writes
    /// waiting on it fail now, and the peer reads the end of the stream. For a peer that has
    /// stopped (a deadline passed); `close()` is the polite way.
    public func abort() {
        guard let base = baton_tls_base_socket(stream) else { return }
        g_socket_shutdown(base.assumingMemoryBound(to: GSocket.self), 1, 1, nil)
        close()
    }

    static func closeAsynchronously(_ stream: UnsafeMutablePointer<GIOStream>) {
        g_io_stream_close_async(stream, G_PRIORITY_DEFAULT, nil, nil, nil)
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

    /// Connects to a peer at `host:port` and proves both identities; `applicationProtocol` is
    /// `alpn` for a device link, `streamALPN` for a continuation stream.
    ///
    /// First the admission gate (`AdmissionGate`), with the identity's discovery key: if the
    /// peer refuses it and the identity holds the key it had before its last one
    /// (`DeviceIdentity.previousDiscoveryKey`), a second connection proves that one, so a
    /// device that missed a rotation of the key is still reached (and then gets the new key
    /// over the link). An identity without a discovery key connects without the gate.
    @MainActor
    public static func connect(host: String, port: UInt16, identity: DeviceIdentity, credential: TLSCredential,
                               applicationProtocol: String = alpn) async throws(TransportError) -> SecureChannel {
        var keys = [identity.discoveryKey].compactMap { $0 }
        if let previous = identity.previousDiscoveryKey, previous != identity.discoveryKey { keys.append(previous) }
        var attempt = 0
        while true {
            let connection = try await openTCP(host: host, port: port)
            defer { g_object_unref(connection) }
            configureSocket(connection)
            if attempt < keys.count {
                do throws(TransportError) {
                    try await AdmissionGate.pass(connection, key: keys[attempt], deadline: admissionDeadline)
                } catch .admissionRefused where attempt + 1 < keys.count && !Task.isCancelled {
                    attempt += 1
                    g_io_stream_close(gCast(connection), nil, nil)  // only a socket: closing never waits
                    continue
                }
            }
            var error: UnsafeMutablePointer<GError>?
            guard let tls = baton_tls_client_connection_new(gCast(connection), &error) else {  // no system CAs: see shim.h
                throw .handshakeFailed(GLibError(consuming: error!))
            }
            g_tls_connection_set_certificate(gCast(tls), credential.certificate)
            let offered = applicationProtocol == streamALPN ? streamProtocols : linkProtocols
            return try await secure(tls, identity: identity, isServer: false, peerHost: remoteHost(connection), offering: offered)
        }
    }

    /// How long a TCP connect may wait for the peer's answer. A firewall that drops the port
    /// gives none, and the kernel alone would retry for about two minutes.
    nonisolated static let connectTimeout: UInt32 = 5

    /// A TCP connection to `host:port`, straight (no proxy), within `connectTimeout`.
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
            return connection
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }

    /// Wraps an accepted TCP connection as the TLS server and proves both identities.
    @MainActor
    static func accept(_ connection: UnsafeMutablePointer<GSocketConnection>, identity: DeviceIdentity,
                       credential: TLSCredential, pending: PendingConnection? = nil) async throws(TransportError) -> SecureChannel {
        configureSocket(connection)
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_server_connection_new(gCast(connection), credential.certificate, &error) else {  // no system CAs
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        baton_tls_require_client_certificate(gCast(tls))
        return try await secure(tls, identity: identity, isServer: true, peerHost: remoteHost(connection), offering: serverProtocols,
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

    /// The handshake and the checks after it, shared by both sides. Takes ownership of `tls`.
    /// glib-networking emits `accept-certificate` on the handshake's context: the app's loop.
    @MainActor
    private static func secure(_ tls: UnsafeMutablePointer<GIOStream>, identity: DeviceIdentity, isServer: Bool,
                               peerHost: String?, offering protocols: ProtocolList,
                               pending: PendingConnection? = nil) async throws(TransportError) -> SecureChannel {
        let connection: UnsafeMutablePointer<GTlsConnection> = gCast(tls)
        let owned = SendablePointer(tls)
        // Finalized on a GIO thread, the TLS connection closes descriptors of its own (its
        // operations' wake-up eventfd) after its socket has gone: the loop hears of that too.
        MainLoop.wakeOnRelease(of: UnsafeMutableRawPointer(tls))
        g_tls_connection_set_database(connection, nil)  // never the system CAs: PeerVerification decides
        protocols.names.withUnsafeBufferPointer { g_tls_connection_set_advertised_protocols(connection, $0.baseAddress) }
        let verification = PeerVerification(identity: identity)
        let handler = verification.attach(to: connection)
        do {
            defer { PeerVerification.detach(handler, from: connection) }
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_tls_connection_handshake_async(gCast(owned.pointer), G_PRIORITY_DEFAULT, cancellable, callback, userData)
            } finish: { result, error in
                g_tls_connection_handshake_finish(gCast(owned.pointer), result, error) != 0 ? true : nil
            }
        } catch {
            closeAsynchronously(tls)
            g_object_unref(tls)
            if case .failure(let refusal)? = verification.result { throw .peerRejected(refusal) }
            throw .handshakeFailed(GLibError(error))
        }
        let fail = { (reason: TransportError) -> TransportError in
            closeAsynchronously(tls)
            g_object_unref(tls)
            return reason
        }
        guard case .success(let peer)? = verification.result else {
            throw fail(.peerRejected(.peerNotInGroup(reason: "its certificate was never presented for checking")))
        }
        let version = g_tls_connection_get_protocol_version(connection)
        guard version == G_TLS_PROTOCOL_VERSION_TLS_1_3 else { throw fail(.tlsVersionTooOld(Int(version.rawValue))) }
        let negotiated = g_tls_connection_get_negotiated_protocol(connection).map { String(cString: $0) }
        guard let negotiated, protocols.contains(negotiated) else { throw fail(.wrongProtocol(negotiated: negotiated)) }
        return SecureChannel(peerIdentifier: peer, peerSerial: verification.peerSerial ?? "", peerHost: peerHost,
                             applicationProtocol: negotiated, stream: tls, isServer: isServer, pending: pending)
    }
}

/// A NULL-terminated list of ALPN protocol names, as GIO takes it, alive for the whole process.
struct ProtocolList: @unchecked Sendable {
    let names: [UnsafePointer<CChar>?]
    private let strings: [String]

    init(_ strings: [String]) {
        self.strings = strings
        names = strings.map { UnsafePointer(strdup($0)) } + [nil]
    }

    func contains(_ name: String) -> Bool { strings.contains(name) }
}

/// What each side offers: a client one protocol, the server both.
private let linkProtocols = ProtocolList([SecureChannel.alpn])
private let streamProtocols = ProtocolList([SecureChannel.streamALPN])
private let serverProtocols = ProtocolList([SecureChannel.alpn, SecureChannel.streamALPN])

/// A device's certificate and key loaded into GIO once (`g_tls_certificate_new_from_pem`).
public final class TLSCredential: @unchecked Sendable {
    let certificate: UnsafeMutablePointer<GTlsCertificate>

    /// Loads `identity`'s certificate and private key into GIO; throws if GIO refuses them.
    public convenience init(identity: DeviceIdentity) throws(TransportError) {
        try self.init(pem: identity.tlsPEM)
    }

    /// A certificate and its key, as one PEM (a pairing's own certificates).
    init(pem: String) throws(TransportError) {
        var error: UnsafeMutablePointer<GError>?
        guard let certificate = g_tls_certificate_new_from_pem(pem, -1, &error) else {
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        self.certificate = certificate
    }

    deinit { g_object_unref(certificate) }
}

/// A GObject pointer that may cross into a `@Sendable` closure (GObject references are
/// thread-safe; the object is used on the loop thread only).
struct SendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

/// A flag set once, read from any thread.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// A copy of some bytes that stays put while GIO writes from it.
final class SendableBytes: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let count: Int
    init(_ data: Data) {
        count = data.count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
        data.withUnsafeBytes { if let base = $0.baseAddress { pointer.copyMemory(from: base, byteCount: data.count) } }
    }
    deinit { pointer.deallocate() }
}

/// A GObject pointer as another class in its hierarchy (what `G_IO_STREAM (x)` does in C).
func gCast<T, U>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<U> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: U.self)
}

extension GLibError {
    /// Any error as a GLibError (GIO calls throw GLibError or CancellationError).
    init(_ error: Error) {
        if let glib = error as? GLibError { self = glib } else {
            self.init(domain: "baton", code: 0, message: "\(error)")
        }
    }
}
