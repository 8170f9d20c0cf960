import BatonLoop
import CGLib
import Crypto
import Foundation

/// The gate in front of TLS: before a device's listener sends its certificate, the peer proves
/// it holds the group's discovery key, so a stranger who connects gets 16 random bytes and a
/// closed socket — nothing that stays the same from one connection, or one rotation, to the
/// next.
///
/// On the connection, before any TLS byte:
/// 1. the server sends a fresh random nonce (16 bytes);
/// 2. the client answers its own random nonce (16 bytes) and
///    HMAC-SHA256(key, "baton gate v1" ‖ server nonce ‖ client nonce) (32 bytes);
/// 3. the server checks the MAC (in constant time) under its current discovery key and sends
///    one byte, 0x01, if it matches; if not, it shuts the connection down without a byte.
///
/// Then the TLS handshake runs on the same connection as before. The server's fresh nonce makes
/// a recorded answer worthless on another connection. The server's gate counts within its
/// handshake deadline; it waits for the answer on the app's loop, no thread held. A device
/// without a discovery key (issued before discovery existed) neither asks nor passes the gate.
@MainActor
enum AdmissionGate {
    nonisolated static let nonceSize = 16
    nonisolated static let macSize = 32
    /// The client's answer: its nonce and the MAC.
    nonisolated static let answerSize = nonceSize + macSize
    /// The byte the server sends once the answer is right.
    nonisolated static let admitted: UInt8 = 0x01
    private nonisolated static let label = Data("baton gate v1".utf8)

    /// `count` bytes from the system's secure random generator.
    nonisolated static func nonce(_ count: Int = nonceSize) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The MAC a client answers `serverNonce` with, having chosen `clientNonce`.
    nonisolated static func mac(key: DiscoveryKey, serverNonce: Data, clientNonce: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: label + serverNonce + clientNonce, using: key.key))
    }

    /// The whole answer to `serverNonce` under `key`: a fresh client nonce and its MAC.
    nonisolated static func answer(to serverNonce: Data, key: DiscoveryKey) -> Data {
        let clientNonce = nonce()
        return clientNonce + mac(key: key, serverNonce: serverNonce, clientNonce: clientNonce)
    }

    /// True if `answer` is right for `serverNonce` under `key` (constant-time comparison).
    nonisolated static func verify(_ answer: Data, serverNonce: Data, key: DiscoveryKey) -> Bool {
        guard answer.count == answerSize else { return false }
        let clientNonce = answer.prefix(nonceSize), given = answer.suffix(macSize)
        return HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: label + serverNonce + clientNonce, using: key.key)
    }

    /// The server's side on the accepted socket `fd`: sends a nonce, waits (on the loop) for the
    /// whole answer, checks it and admits the peer. False if the peer hung up, the connection
    /// was shut down (its deadline), or the answer is wrong: the caller then drops it.
    static func admit(on fd: Int32, key: DiscoveryKey) async -> Bool {
        guard let serverNonce = greet(on: fd) else { return false }
        return await admit(on: fd, greeted: serverNonce, key: key)
    }

    /// The server's first step on the accepted socket `fd`: sends a fresh nonce and returns it,
    /// nil if it could not be sent. The listener greets a connection as it accepts it, so the
    /// peer's proof is on its way as early as can be (`TLSListener`).
    static func greet(on fd: Int32) -> Data? {
        let serverNonce = nonce()
        // A fresh connection's send buffer is empty: 16 bytes always fit without waiting.
        return sendAll(serverNonce, on: fd) ? serverNonce : nil
    }

    /// True if `fd` already holds a whole answer, not read yet: the peer's proof is there and
    /// is checked on the loop's next turn (the listener does not close such a connection to make
    /// room; `TLSListener`).
    static func answerQueued(on fd: Int32) -> Bool {
        var answer = [UInt8](repeating: 0, count: answerSize)
        return recv(fd, &answer, answerSize, Int32(MSG_PEEK | MSG_DONTWAIT)) == answerSize
    }

    /// The rest of the server's side, after `greet(on:)` sent `serverNonce` on `fd`: waits (on
    /// the loop) for the whole answer, checks it and admits the peer; false as `admit(on:key:)`.
    static func admit(on fd: Int32, greeted serverNonce: Data, key: DiscoveryKey) async -> Bool {
        await Readiness.socket(fd, holds: answerSize)
        var answer = [UInt8](repeating: 0, count: answerSize)
        guard recv(fd, &answer, answerSize, Int32(MSG_DONTWAIT)) == answerSize,
              verify(Data(answer), serverNonce: serverNonce, key: key) else { return false }
        return sendAll(Data([admitted]), on: fd)
    }

    /// The client's side on a connection just made: reads the server's nonce, answers it under
    /// `key` and waits for the server to admit it, all within `deadline`. Cancelling the task
    /// shuts the connection down, which ends the wait at once.
    static func pass(_ connection: UnsafeMutablePointer<GSocketConnection>, key: DiscoveryKey,
                     deadline: Duration) async throws(TransportError) {
        let socket = SendablePointer(g_socket_connection_get_socket(connection)!)
        let result: Result<Void, TransportError> = await withTaskCancellationHandler {
            do throws(TransportError) {
                return .success(try await pass(socket.pointer, key: key, deadline: deadline))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            g_socket_shutdown(socket.pointer, 1, 1, nil)  // thread-safe: a system call on a descriptor kept open
        }
        try result.get()
    }

    private static func pass(_ socket: UnsafeMutablePointer<GSocket>, key: DiscoveryKey,
                             deadline: Duration) async throws(TransportError) {
        let fd = g_socket_get_fd(socket)
        var timedOut = false
        let timer = MainLoop.after(deadline) {
            timedOut = true
            g_socket_shutdown(socket, 1, 1, nil)  // the waits below end at once
        }
        defer { timer.cancel() }
        await Readiness.socket(fd, holds: nonceSize)
        var serverNonce = [UInt8](repeating: 0, count: nonceSize)
        guard !timedOut, !Task.isCancelled, recv(fd, &serverNonce, nonceSize, Int32(MSG_DONTWAIT)) == nonceSize else {
            throw timedOut ? .admissionTimedOut(deadline) : Task.isCancelled ? .closed : .admissionFailed
        }
        guard sendAll(answer(to: Data(serverNonce), key: key), on: fd) else { throw .admissionFailed }
        await Readiness.socket(fd, holds: 1)
        var verdict: UInt8 = 0
        let read = recv(fd, &verdict, 1, Int32(MSG_DONTWAIT))
        guard !timedOut else { throw .admissionTimedOut(deadline) }
        guard !Task.isCancelled else { throw .closed }
        // The server shuts the connection down, without a byte, on a wrong answer.
        guard read == 1 else { throw .admissionRefused }
        guard verdict == admitted else { throw .admissionFailed }
    }

    /// Sends all of `bytes` at once without waiting (they fit in a fresh socket's buffer).
    private static func sendAll(_ bytes: Data, on fd: Int32) -> Bool {
        bytes.withUnsafeBytes { send(fd, $0.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) } == bytes.count
    }
}
