import BatonLoop
import CGLib
import Crypto
import Foundation

/// One pairing's connection: a `SecureChannel` with the pairing newcomer's policy (TLS 1.3,
/// ALPN `baton-pair/1`), both sides presenting a self-signed certificate, which the handshake
/// proves they hold the key of; nothing else is trusted until the people compare the code
/// derived from this connection's TLS exporter (`PairingCode`).
///
/// Messages travel as frames (`PairingMessage`): every read has a deadline, after which the
/// connection is shut down, and a frame's length is checked against its step's cap before its
/// body is read.
@MainActor
final class PairingChannel {
    /// The ALPN protocol id of a pairing connection.
    nonisolated static let alpn = SecureChannel.pairingALPN
    /// How long connecting and the TLS handshake may take.
    static let handshakeDeadline = SecureChannel.handshakeDeadline

    /// The TLS connection.
    let channel: SecureChannel
    /// The TLS exporter of the connection (RFC 9266), 32 bytes.
    let exporter: Data
    /// This side's DER SubjectPublicKeyInfo.
    let ownKeyInfo: Data
    /// The key the peer proved it holds in the handshake.
    let peerKey: P256.Signing.PublicKey
    /// Every byte this side writes to the connection, for the tests' check that no private
    /// key leaves the newcomer.
    var onSend: ((Data) -> Void)?
    private var buffer = Data()
    private var deadlinePassed = false
    private var isClosed = false

    /// The pairing over `channel`, made under the pairing policy with `own`; throws (and
    /// shuts `channel` down) if its TLS stack cannot export keying material.
    init(_ channel: SecureChannel, own: PairingCertificate) throws(PairingError) {
        guard case .newcomer(let key) = channel.peer else {
            channel.drop()
            throw .handshakeFailed("the peer presented no P-256 certificate")
        }
        do {
            exporter = try channel.exporter()
        } catch {
            channel.drop()
            throw .exporterUnavailable(error)
        }
        self.channel = channel
        ownKeyInfo = own.subjectPublicKeyInfo
        peerKey = key
    }

    /// The peer's DER SubjectPublicKeyInfo.
    var peerKeyInfo: Data { peerKey.derRepresentation }
    /// The peer's IP address, as the socket sees it.
    var peerHost: String? { channel.peerHost }
    /// A listener's wait for this connection to say hello (its deadline), if accepted.
    var pending: PendingConnection? { channel.pending }
    /// Whether the peer has hung up or reset the connection.
    var peerHasGone: Bool { channel.peerHasGone }

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
        let channel: SecureChannel
        do {
            channel = try await SecureChannel.connect(over: connection, policy: .pairingNewcomer(certificate), offering: pairingProtocols)
        } catch {
            throw PairingError(handshake: error)
        }
        return try PairingChannel(channel, own: certificate)
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
            guard let chunk = try? await channel.receive(maxLength: count - buffer.count), !chunk.isEmpty else {
                throw .closed(step: step)
            }
            buffer.append(chunk)
        }
        let bytes = buffer.prefix(count)
        buffer.removeFirst(count)
        return Data(bytes)
    }

    func write(_ data: Data) async throws(PairingError) {
        onSend?(data)
        do {
            try await channel.send(data)
        } catch {
            guard case .connectionFailed(let failure) = error else { throw .connectionFailed(GLibError(error)) }
            throw .connectionFailed(failure)
        }
    }

    /// Copies every byte the peer sends to `other` as it comes, until the peer's end (then
    /// `other`'s writing ends too) or an error: what a relay in the middle does. A listener's
    /// deadline for this connection's first message no longer applies. (The tests' relays;
    /// not API.)
    func forward(to other: PairingChannel) async {
        channel.authenticated()
        while true {
            guard let chunk = try? await channel.receive(maxLength: 16_384), !chunk.isEmpty else { break }
            do { try await other.write(chunk) } catch { break }
        }
        other.close()
    }

    /// Closes this side's writing (the TLS close is sent in the background; nothing waits on
    /// the peer); the connection itself closes when the channel goes.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        channel.hangUp()
    }

    /// Shuts the TCP connection down both ways: reads and writes waiting on it fail now.
    func abort() { channel.drop() }
}

extension PairingError {
    /// A pairing connection's TLS failure, in pairing's words.
    init(handshake error: TransportError) {
        self = switch error {
        case .handshakeFailed(let failure): .handshakeFailed(failure.message)
        case .peerRejected(.peerNotInGroup(let reason)): .handshakeFailed(reason)
        case .peerRejected(let refusal): .handshakeFailed("\(refusal)")
        case .tlsVersionTooOld(let version): .wrongProtocol("TLS protocol version \(version)")
        case .wrongProtocol(let negotiated): .wrongProtocol("it negotiated \(negotiated ?? "no ALPN protocol")")
        case .connectionFailed(let failure): .connectionFailed(failure)
        default: .handshakeFailed("\(error)")
        }
    }
}
