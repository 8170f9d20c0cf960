import BatonLoop
import CBatonStreams
import CGLib
import Crypto
import Foundation

/// One pairing's TLS 1.3 connection (ALPN `baton-pair/1`), on the app's loop: both sides
/// present a self-signed certificate, which the handshake proves they hold the key of, and
/// nothing else is trusted until the people compare the code derived from this connection's
/// TLS exporter (`PairingCode`).
///
/// Messages travel as frames (`PairingMessage`): every read has a deadline, after which the
/// connection is shut down, and a frame's length is checked against its step's cap before its
/// body is read.
@MainActor
final class PairingChannel {
    /// The ALPN protocol id of a pairing connection.
    nonisolated static let alpn = "baton-pair/1"
    /// How long connecting and the TLS handshake may take.
    static let handshakeDeadline: Duration = .seconds(10)

    private let owned: SendablePointer<GIOStream>
    var stream: UnsafeMutablePointer<GIOStream> { owned.pointer }
    /// The TLS exporter of the connection (RFC 9266), 32 bytes.
    let exporter: Data
    /// This side's DER SubjectPublicKeyInfo.
    let ownKeyInfo: Data
    /// The key the peer proved it holds in the handshake.
    let peerKey: P256.Signing.PublicKey
    /// The peer's IP address, as the socket sees it.
    let peerHost: String?
    /// A listener's wait for this connection to say hello (its deadline), if accepted.
    let pending: PendingConnection?
    /// Every byte this side writes to the connection, for the tests' check that no private
    /// key leaves the newcomer.
    var onSend: ((Data) -> Void)?
    private var buffer = Data()
    private var deadlinePassed = false
    private var isClosed = false

    private init(stream: UnsafeMutablePointer<GIOStream>, exporter: Data, ownKeyInfo: Data, peerKey: P256.Signing.PublicKey,
                 peerHost: String?, pending: PendingConnection?) {
        owned = SendablePointer(stream)
        self.exporter = exporter
        self.ownKeyInfo = ownKeyInfo
        self.peerKey = peerKey
        self.peerHost = peerHost
        self.pending = pending
    }

    deinit {
        SecureChannel.closeAsynchronously(owned.pointer)
        g_object_unref(owned.pointer)
    }

    /// The peer's DER SubjectPublicKeyInfo.
    var peerKeyInfo: Data { peerKey.derRepresentation }

    /// Connects to a pairing window at `host:port` with a throwaway key (the tests' relays and
    /// probes; not API: `@testable import`).
    static func connect(host: String, port: UInt16) async throws(PairingError) -> PairingChannel {
        try await connect(host: host, port: port, certificate: try PairingCertificate(key: P256.Signing.PrivateKey()))
    }

    /// Connects to a pairing window at `host:port`, presenting `certificate`.
    static func connect(host: String, port: UInt16, certificate: PairingCertificate) async throws(PairingError) -> PairingChannel {
        let opening = Task { @MainActor () -> Result<SendablePointer<GSocketConnection>, TransportError> in
            do throws(TransportError) {
                return .success(SendablePointer(try await SecureChannel.openTCP(host: host, port: port)))
            } catch {
                return .failure(error)
            }
        }
        let deadline = MainLoop.after(handshakeDeadline) { opening.cancel() }
        let opened = await opening.loopValue()
        deadline.cancel()
        let connection: UnsafeMutablePointer<GSocketConnection>
        switch opened {
        case .success(let pointer): connection = pointer.pointer
        case .failure(.connectionFailed(let failure)) where !failure.isCancellation: throw .connectionFailed(failure)
        case .failure: throw .timedOut(step: "connection", handshakeDeadline)
        }
        defer { g_object_unref(connection) }
        SecureChannel.configureSocket(connection)
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_client_connection_new(gCast(connection), &error) else {  // no system CAs: see shim.h
            throw .handshakeFailed(GLibError(consuming: error!).message)
        }
        g_tls_connection_set_certificate(gCast(tls), certificate.credential.certificate)
        return try await handshake(tls, own: certificate, peerHost: SecureChannel.remoteHost(connection), pending: nil)
    }

    /// Wraps an accepted connection as the TLS server, presenting `certificate`, and asks for
    /// the peer's certificate.
    static func accept(_ connection: UnsafeMutablePointer<GSocketConnection>, certificate: PairingCertificate,
                       pending: PendingConnection) async throws(PairingError) -> PairingChannel {
        SecureChannel.configureSocket(connection)
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_server_connection_new(gCast(connection), certificate.credential.certificate, &error) else {  // no system CAs
            throw .handshakeFailed(GLibError(consuming: error!).message)
        }
        baton_tls_require_client_certificate(gCast(tls))
        return try await handshake(tls, own: certificate, peerHost: SecureChannel.remoteHost(connection), pending: pending)
    }

    /// The handshake, then TLS 1.3, the ALPN id, the peer's key and the exporter. Takes
    /// ownership of `tls`.
    private static func handshake(_ tls: UnsafeMutablePointer<GIOStream>, own: PairingCertificate, peerHost: String?,
                                  pending: PendingConnection?) async throws(PairingError) -> PairingChannel {
        let connection: UnsafeMutablePointer<GTlsConnection> = gCast(tls)
        let owned = SendablePointer(tls)
        MainLoop.wakeOnRelease(of: UnsafeMutableRawPointer(tls))
        // No certificate database (made without one): never the system CAs; the code decides.
        pairingProtocols.names.withUnsafeBufferPointer { g_tls_connection_set_advertised_protocols(connection, $0.baseAddress) }
        let fail = { (reason: PairingError) -> PairingError in
            SecureChannel.closeAsynchronously(tls)
            g_object_unref(tls)
            return reason
        }
        let check = PairingCertificateCheck()
        let handler = check.attach(to: connection)
        // A client has no listener's deadline: its own bounds the handshake.
        let deadline = pending == nil ? MainLoop.after(handshakeDeadline) {
            if let base = baton_tls_base_socket(owned.pointer) { g_socket_shutdown(base.assumingMemoryBound(to: GSocket.self), 1, 1, nil) }
        } : nil
        do {
            defer {
                g_signal_handler_disconnect(connection, handler)
                deadline?.cancel()
            }
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_tls_connection_handshake_async(gCast(owned.pointer), G_PRIORITY_DEFAULT, cancellable, callback, userData)
            } finish: { result, error in
                g_tls_connection_handshake_finish(gCast(owned.pointer), result, error) != 0 ? true : nil
            }
        } catch {
            throw fail(.handshakeFailed(GLibError(error).message))
        }
        let version = g_tls_connection_get_protocol_version(connection)
        guard version == G_TLS_PROTOCOL_VERSION_TLS_1_3 else { throw fail(.wrongProtocol("TLS protocol version \(version.rawValue)")) }
        let negotiated = g_tls_connection_get_negotiated_protocol(connection).map { String(cString: $0) }
        guard negotiated == alpn else { throw fail(.wrongProtocol("it negotiated \(negotiated ?? "no ALPN protocol")")) }
        guard let peerKey = check.peerKey else { throw fail(.handshakeFailed("the peer presented no P-256 certificate")) }
        let array = g_byte_array_new()!
        defer { g_byte_array_unref(array) }
        var error: UnsafeMutablePointer<GError>?
        guard g_tls_connection_get_channel_binding_data(connection, G_TLS_CHANNEL_BINDING_TLS_EXPORTER, array, &error) != 0 else {
            throw fail(.exporterUnavailable(GLibError(consuming: error!)))
        }
        guard array.pointee.len == 32 else {
            throw fail(.exporterUnavailable(GLibError(domain: "baton", code: 0, message: "the exporter is \(array.pointee.len) bytes, not 32")))
        }
        return PairingChannel(stream: tls, exporter: Data(bytes: array.pointee.data, count: 32), ownKeyInfo: own.subjectPublicKeyInfo,
                              peerKey: peerKey, peerHost: peerHost, pending: pending)
    }

    /// Sends `message` as one frame.
    func send(_ message: PairingMessage) async throws(PairingError) {
        try await write(try message.frame())
    }

    /// Reads the message of `step`, within `time`; the connection is shut down if it does not
    /// come in time, if its frame is larger than the step's cap, or if it is not that step's.
    func receive(_ step: PairingMessage.Step, within time: Duration) async throws(PairingError) -> PairingMessage {
        let deadline = MainLoop.after(time) { [weak self] in
            self?.deadlinePassed = true
            self?.abort()
        }
        defer { deadline.cancel() }
        do throws(PairingError) {
            let header = try await read(exactly: 4, step: step.rawValue)
            let size = header.reduce(0) { $0 << 8 | Int($1) }
            guard size <= step.limit else {
                abort()
                throw .frameTooLarge(step: step.rawValue, size: size, limit: step.limit)
            }
            return try PairingMessage(step: step, body: try await read(exactly: size, step: step.rawValue))
        } catch {
            if deadlinePassed { throw .timedOut(step: step.rawValue, time) }
            throw error
        }
    }

    private func read(exactly count: Int, step: String) async throws(PairingError) -> Data {
        while buffer.count < count {
            let chunk: Data
            do {
                chunk = try await GIOCalls.read(from: g_io_stream_get_input_stream(stream)!, maxLength: count - buffer.count)
            } catch {
                throw .closed(step: step)
            }
            guard !chunk.isEmpty else { throw .closed(step: step) }
            buffer.append(chunk)
        }
        let bytes = buffer.prefix(count)
        buffer.removeFirst(count)
        return Data(bytes)
    }

    func write(_ data: Data) async throws(PairingError) {
        onSend?(data)
        let output = SendablePointer(g_io_stream_get_output_stream(stream)!)
        let bytes = SendableBytes(data)
        defer { withExtendedLifetime(bytes) {} }
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

    /// Copies every byte the peer sends to `other` as it comes, until the peer's end (then
    /// `other`'s writing ends too) or an error: what a relay in the middle does. A listener's
    /// deadline for this connection's first message no longer applies. (The tests' relays;
    /// not API.)
    func forward(to other: PairingChannel) async {
        pending?.authenticated()
        while true {
            guard let chunk = try? await GIOCalls.read(from: g_io_stream_get_input_stream(stream)!, maxLength: 16_384),
                  !chunk.isEmpty else { break }
            do { try await other.write(chunk) } catch { break }
        }
        other.close()
    }

    /// Closes the connection (the TLS close is sent in the background; nothing waits on the peer).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        pending?.released()
        let output = g_io_stream_get_output_stream(stream)
        g_output_stream_close_async(output, G_PRIORITY_DEFAULT, nil, nil, nil)
    }

    /// Shuts the TCP connection down both ways: reads and writes waiting on it fail now.
    /// Whether the peer has hung up or reset the connection: a look at the socket that reads
    /// nothing (a FIN or a reset is in; data waiting means it is still there).
    var peerHasGone: Bool {
        guard let base = baton_tls_base_socket(stream) else { return true }
        var byte: UInt8 = 0
        let count = recv(g_socket_get_fd(base.assumingMemoryBound(to: GSocket.self)), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if count == 0 { return true }
        return count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    func abort() {
        if let base = baton_tls_base_socket(stream) { g_socket_shutdown(base.assumingMemoryBound(to: GSocket.self), 1, 1, nil) }
        pending?.drop()
    }
}

/// The one ALPN id a pairing connection offers.
private let pairingProtocols = ProtocolList([PairingChannel.alpn])
