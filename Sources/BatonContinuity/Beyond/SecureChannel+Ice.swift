import BatonLoop
import CGLib
import Foundation

extension SecureChannel {
    /// How long the TLS handshake over an ICE stream may take, on either side.
    public static let iceHandshakeDeadline: Duration = .seconds(15)

    /// Wraps a connected stream that is no socket (an ICE stream) as the TLS client under
    /// `policy`, offering `protocols`, and proves both identities. Its caller bounds it (the
    /// handshake deadline here shuts down sockets only): `open(over:role:identity:credential:)`.
    @MainActor
    static func connect(overStream base: UnsafeMutablePointer<GIOStream>, policy: CertificatePolicy,
                        offering protocols: ProtocolList) async throws(TransportError) -> SecureChannel {
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_client_connection_new(base, &error) else { throw .handshakeFailed(GLibError(consuming: error!)) }
        g_tls_connection_set_certificate(gCast(tls), policy.certificate)
        return try await secure(tls, policy: policy, isServer: false, peerHost: nil, offering: protocols)
    }

    /// Wraps a connected stream that is no socket (an ICE stream) as the TLS server under
    /// `policy`, asks for the peer's certificate and proves both identities; bounded by its
    /// caller, as `connect(overStream:policy:offering:)`.
    @MainActor
    static func accept(stream base: UnsafeMutablePointer<GIOStream>, policy: CertificatePolicy) async throws(TransportError) -> SecureChannel {
        var error: UnsafeMutablePointer<GError>?
        guard let tls = baton_tls_server_connection_new(base, policy.certificate, &error) else {
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        baton_tls_require_client_certificate(gCast(tls))
        return try await secure(tls, policy: policy, isServer: true, peerHost: nil, offering: policy.serverProtocols)
    }

    /// A device link over a connected ICE stream: exactly what a LAN connection carries
    /// (docs/PROTOCOL.md, 7.1). The admission gate first (`AdmissionGate`, over the stream:
    /// the controlled side asks, the controlling side proves the group's discovery key), within
    /// `admissionDeadline`; then mutual TLS 1.3 with the group's certificates, ALPN `baton/1`,
    /// the controlling side as the TLS client, within `iceHandshakeDeadline`; the peer checked
    /// as on the LAN (`CertificatePolicy.groupMember`: a current, unrevoked device of the group).
    ///
    /// The channel carries a link as a TCP one does (`PeerBus.open(over:)`, then
    /// `LinkTable.adopt(_:dialed:path:)`): closing or aborting it closes the ICE stream, whose
    /// pseudo-TCP FIN tells the peer; its `peerHost` is the selected remote candidate's address.
    ///
    /// On any failure the stream is closed. The controlled side's refusals are the listener's
    /// (`notAdmitted`, `peerRejected`, `deadlinePassed`); the controlling side's the dialer's
    /// (`admissionRefused`, `admissionFailed`, `admissionTimedOut`, `peerRejected`,
    /// `handshakeFailed`). Unlike a LAN dial, a controlling side refused at the gate does not
    /// try its previous discovery key: that needs a new ICE session.
    @MainActor
    public static func open(over ice: IceStream, role: IceSession.Role, identity: DeviceIdentity,
                            credential: TLSCredential) async throws(TransportError) -> SecureChannel {
        let stream = SendablePointer(ice.stream)
        do throws(TransportError) {
            if let key = identity.discoveryKey {
                switch role {
                case .controlling:
                    try await withDeadline(admissionDeadline, timeout: .admissionTimedOut(admissionDeadline)) {
                        () async throws(TransportError) in
                        try await AdmissionGate.pass(over: stream.pointer, key: key)
                    }
                case .controlled:
                    try await withDeadline(admissionDeadline, timeout: .notAdmitted) { () async throws(TransportError) in
                        guard await AdmissionGate.admit(over: stream.pointer, key: key) else { throw .notAdmitted }
                    }
                }
            }
            let policy = CertificatePolicy.groupMember(identity: identity, credential: credential)
            let channel = try await withDeadline(iceHandshakeDeadline, timeout: .deadlinePassed) {
                () async throws(TransportError) -> SecureChannel in
                switch role {
                case .controlling: try await connect(overStream: stream.pointer, policy: policy, offering: ProtocolList([alpn]))
                case .controlled: try await accept(stream: stream.pointer, policy: policy)
                }
            }
            ice.keepAlive(with: UnsafeMutableRawPointer(channel.stream))
            channel.attach(ice)
            return channel
        } catch {
            closeAsynchronously(stream.pointer)
            withExtendedLifetime(ice) {}
            throw error
        }
    }
}

/// Runs `body` in a task cancelled after `deadline`; if it fails after the deadline passed,
/// throws `timeout` instead of its error (the cancellation's).
@MainActor
func withDeadline<T: Sendable>(_ deadline: Duration, timeout: TransportError,
                               _ body: @escaping @MainActor @Sendable () async throws(TransportError) -> T) async throws(TransportError) -> T {
    let task = Task { @MainActor () -> Result<T, TransportError> in
        do throws(TransportError) { return .success(try await body()) } catch { return .failure(error) }
    }
    var expired = false
    let timer = MainLoop.after(deadline) { expired = true; task.cancel() }
    defer { timer.cancel() }
    let result = await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
    if case .failure = result, expired { throw timeout }
    return try result.get()
}
