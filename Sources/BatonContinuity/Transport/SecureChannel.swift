import BatonLoop
import CGLib
import Foundation

/// A mutually authenticated TLS 1.3 connection to another device of the group, on the GLib
/// loop (GIO, GnuTLS through glib-networking).
///
/// Both ends present their device certificate; each checks the other's in `PeerVerification`
/// during the handshake. Then the ALPN protocol must be `baton/1` and the TLS version 1.3,
/// or the connection is closed before any application data. Messages travel as D-Bus
/// peer-to-peer over the TLS stream (`openBus`): GLib's framing and GVariant marshalling.
public final class SecureChannel: @unchecked Sendable {
    /// The ALPN protocol id; its version changes with incompatible protocol versions.
    public static let alpn = "baton/1"

    /// The peer's device name, from its verified certificate.
    public let peerName: String
    let stream: UnsafeMutablePointer<GIOStream>
    let isServer: Bool

    private init(peerName: String, stream: UnsafeMutablePointer<GIOStream>, isServer: Bool) {
        self.peerName = peerName
        self.stream = stream
        self.isServer = isServer
    }

    deinit {
        g_io_stream_close(stream, nil, nil)
        g_object_unref(stream)
    }

    /// Closes the connection.
    public func close() { g_io_stream_close(stream, nil, nil) }

    /// Connects to a peer at `host:port` and proves both identities.
    public static func connect(host: String, port: UInt16, identity: DeviceIdentity,
                               credential: TLSCredential) async throws(TransportError) -> SecureChannel {
        let client = g_socket_client_new()!
        defer { g_object_unref(client) }
        let address = "\(host):\(port)"
        let connection: UnsafeMutablePointer<GSocketConnection>
        do {
            connection = try await GIOAsync.call { cancellable, callback, userData in
                g_socket_client_connect_to_host_async(client, address, port, cancellable, callback, userData)
            } finish: { result, error in
                g_socket_client_connect_to_host_finish(client, result, error).map(SendablePointer.init)
            }.pointer
        } catch {
            throw .connectionFailed(GLibError(error))
        }
        defer { g_object_unref(connection) }
        g_socket_set_keepalive(g_socket_connection_get_socket(connection), 1)
        var error: UnsafeMutablePointer<GError>?
        guard let tls = g_tls_client_connection_new(gCast(connection), nil, &error) else {
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        g_tls_connection_set_certificate(gCast(tls), credential.certificate)
        return try await secure(tls, identity: identity, isServer: false)
    }

    /// Wraps an accepted TCP connection as the TLS server and proves both identities.
    static func accept(_ connection: UnsafeMutablePointer<GSocketConnection>, identity: DeviceIdentity,
                       credential: TLSCredential) async throws(TransportError) -> SecureChannel {
        g_socket_set_keepalive(g_socket_connection_get_socket(connection), 1)
        var error: UnsafeMutablePointer<GError>?
        guard let tls = g_tls_server_connection_new(gCast(connection), credential.certificate, &error) else {
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        baton_tls_require_client_certificate(gCast(tls))
        return try await secure(tls, identity: identity, isServer: true)
    }

    /// The handshake and the checks after it, shared by both sides. Takes ownership of `tls`.
    private static func secure(_ tls: UnsafeMutablePointer<GIOStream>, identity: DeviceIdentity,
                               isServer: Bool) async throws(TransportError) -> SecureChannel {
        let connection: UnsafeMutablePointer<GTlsConnection> = gCast(tls)
        let owned = SendablePointer(tls)
        g_tls_connection_set_database(connection, nil)  // never the system CAs: PeerVerification decides
        alpnProtocols.withUnsafeBufferPointer { g_tls_connection_set_advertised_protocols(connection, $0.baseAddress) }
        let verification = PeerVerification(identity: identity)
        verification.attach(to: connection)
        do {
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_tls_connection_handshake_async(gCast(owned.pointer), G_PRIORITY_DEFAULT, cancellable, callback, userData)
            } finish: { result, error in
                g_tls_connection_handshake_finish(gCast(owned.pointer), result, error) != 0 ? true : nil
            }
        } catch {
            g_io_stream_close(tls, nil, nil)
            g_object_unref(tls)
            if case .failure(let refusal)? = verification.result { throw .peerRejected(refusal) }
            throw .handshakeFailed(GLibError(error))
        }
        let fail = { (reason: TransportError) -> TransportError in
            g_io_stream_close(tls, nil, nil)
            g_object_unref(tls)
            return reason
        }
        guard case .success(let peer)? = verification.result else {
            throw fail(.peerRejected(.peerNotInGroup(reason: "its certificate was never presented for checking")))
        }
        let version = g_tls_connection_get_protocol_version(connection)
        guard version == G_TLS_PROTOCOL_VERSION_TLS_1_3 else { throw fail(.tlsVersionTooOld(Int(version.rawValue))) }
        let negotiated = g_tls_connection_get_negotiated_protocol(connection).map { String(cString: $0) }
        guard negotiated == alpn else { throw fail(.wrongProtocol(negotiated: negotiated)) }
        return SecureChannel(peerName: peer, stream: tls, isServer: isServer)
    }
}

/// `{"baton/1", NULL}`, alive for the whole process.
nonisolated(unsafe) private let alpnProtocols: [UnsafePointer<CChar>?] = [UnsafePointer(strdup(SecureChannel.alpn)), nil]

/// A device's certificate and key loaded into GIO once (`g_tls_certificate_new_from_pem`).
public final class TLSCredential: @unchecked Sendable {
    let certificate: UnsafeMutablePointer<GTlsCertificate>

    public init(identity: DeviceIdentity) throws(TransportError) {
        var error: UnsafeMutablePointer<GError>?
        guard let certificate = g_tls_certificate_new_from_pem(identity.tlsPEM, -1, &error) else {
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
