import BatonLoop
import CGLib
import Foundation

/// The D-Bus authentication that opens a `DBusConnection` (D-Bus specification,
/// "Authentication Protocol"): a NUL byte, then text lines, read and written on the loop. Only
/// `ANONYMOUS` is accepted and offered: who the peer is was decided before, by the mutual TLS
/// handshake of a link or the socket credentials of an app's connection to its agent. No
/// file-descriptor passing is agreed to. Bounded: at most `maximumLines` lines of at most
/// `maximumLineLength` bytes; the caller bounds the time (`abortTransport()` ends it).
extension DBusConnection {
    nonisolated package static let maximumLines = 16
    nonisolated package static let maximumLineLength = 512

    /// Authenticates the client, as the serving side does. Message processing has not
    /// started; bytes the client sent after `BEGIN` stay for it. On failure the caller closes.
    package func authenticateClient() async throws {
        while input.count - inputStart < 1 {
            await readable()
            guard try readForAuthentication() else { continue }
        }
        guard input[inputStart] == 0 else { throw Self.authenticationError("the client did not begin with a NUL byte") }
        inputStart += 1
        let guid = g_dbus_generate_guid()!
        defer { g_free(guid) }
        var accepted = false
        for _ in 0..<Self.maximumLines {
            let words = try await readLine().split(separator: " ")
            switch words.first {
            case "AUTH" where words.count >= 2 && words.count <= 3 && words[1] == "ANONYMOUS":
                accepted = true
                writeLine("OK " + String(cString: guid))
            case "AUTH", "CANCEL", "ERROR":
                accepted = false
                writeLine("REJECTED ANONYMOUS")
            case "NEGOTIATE_UNIX_FD" where accepted:
                writeLine("ERROR no file descriptors on this connection")
            case "BEGIN" where accepted:
                return
            default:
                writeLine("ERROR")
            }
        }
        throw Self.authenticationError("more than \(Self.maximumLines) authentication lines")
    }

    /// Authenticates to the serving side (`ANONYMOUS`) within `timeout`. Message processing
    /// has not started. On failure the caller closes.
    ///
    /// `pipelined`: the D-Bus specification lets a client send `BEGIN` (and its first messages)
    /// without waiting for the server's `OK` when it knows the mechanism will be accepted, as
    /// sd-bus does. Then this writes `AUTH ANONYMOUS` and `BEGIN` in one flight and returns at
    /// once: calls made from then on go out right behind them, so authentication costs no round
    /// trip of its own. The server's answer is still read and checked before any message from
    /// the server is: anything but `OK` (or no answer within `timeout`) closes the connection,
    /// and the calls waiting fail as on any closed connection. A server that refuses never sees
    /// the calls as messages (after its `REJECTED` it reads them as authentication lines, and
    /// closes at its line caps).
    package func authenticateToServer(timeout: Duration, pipelined: Bool = false) async throws {
        let deadline = MainLoop.after(timeout) { [weak self] in self?.abortTransport() }
        let hello = "\0AUTH ANONYMOUS " + "baton".utf8.map { String(format: "%02x", $0) }.joined()
        guard pipelined else {
            defer { deadline.cancel() }
            writeLine(hello)
            let answer = try await readLine()
            guard answer.hasPrefix("OK ") else { throw Self.authenticationError("the other side did not accept ANONYMOUS") }
            writeLine("BEGIN")
            guard !isClosed else { throw Self.authenticationError("the other side closed the connection after accepting it") }
            return
        }
        Array((hello + "\r\nBEGIN\r\n").utf8).withUnsafeBytes { writeRaw($0) }
        guard !isClosed else {
            deadline.cancel()
            throw Self.authenticationError("the connection ended as authentication began")
        }
        awaitingServerAnswer = true
        Task { @MainActor in
            defer { deadline.cancel() }
            await self.takeServerAnswer()
        }
    }

    /// Reads the server's answer to a pipelined authentication: `OK` lets messages through
    /// (now, or when `startMessageProcessing()` is called); anything else closes.
    private func takeServerAnswer() async {
        do {
            let answer = try await readLine()
            guard answer.hasPrefix("OK ") else { throw Self.authenticationError("the other side did not accept ANONYMOUS") }
        } catch {
            awaitingServerAnswer = false
            refusePipelinedAuthentication((error as? GLibError)?.message ?? "\(error)")
            return
        }
        awaitingServerAnswer = false
        if processing { beginReadingMessages() }
    }

    /// The next line (without its CR LF), read on the loop.
    func readLine() async throws -> String {
        while true {
            let end = input.withUnsafeBytes { bytes -> Int? in
                var index = inputStart
                while index + 1 < bytes.count {
                    if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
                    index += 1
                }
                return nil
            }
            if let end {
                guard end - inputStart <= Self.maximumLineLength else {
                    throw Self.authenticationError("an authentication line over \(Self.maximumLineLength) bytes")
                }
                let line = String(decoding: input[inputStart..<end], as: UTF8.self)
                inputStart = end + 2
                return line
            }
            guard input.count - inputStart <= Self.maximumLineLength else {
                throw Self.authenticationError("an authentication line over \(Self.maximumLineLength) bytes")
            }
            await readable()
            _ = try readForAuthentication()
        }
    }

    /// One read during authentication: true if bytes came, false if none yet; throws when the
    /// connection ended (closed by the other side, or past the deadline).
    private func readForAuthentication() throws -> Bool {
        switch readSome() {
        case .moved: return true
        case .wouldBlock: return false
        case .ended:
            throw Self.authenticationError("the connection ended during authentication (closed by the other side, or past the deadline)")
        }
    }

    func writeLine(_ line: String) {
        Array((line + "\r\n").utf8).withUnsafeBytes { writeRaw($0) }
    }

    static func authenticationError(_ message: String) -> GLibError {
        GLibError(domain: ioDomain, code: gint(G_IO_ERROR_INVALID_DATA.rawValue), message: "D-Bus authentication: \(message)")
    }
}
