import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// The D-Bus authentication that opens an app's connection to the agent (D-Bus
/// specification, "Authentication Protocol"): a NUL byte, then text lines. The agent accepts
/// only `ANONYMOUS`, as the mutual-TLS links do: who the peer is was decided before, from the
/// socket's credentials (same uid only). It agrees to no file-descriptor passing. Bounded: at
/// most `maximumLines` lines of at most `maximumLineLength` bytes; the caller bounds the time
/// by shutting the socket down.
extension LocalBus {
    static let maximumLines = 16
    static let maximumLineLength = 512

    /// Authenticates the client on `connection` (a connected `GSocketConnection *` whose
    /// peer's uid was checked), as the agent does, and returns the bus with message
    /// processing not yet started. Bytes the client sent after `BEGIN` stay for the bus.
    static func serve(over connection: OpaquePointer) async throws -> LocalBus {
        let bus = LocalBus(connection: connection)
        do {
            try await bus.authenticateClient()
        } catch {
            bus.close()
            throw error
        }
        return bus
    }

    /// Authenticates to the agent on `connection` as an app does (`ANONYMOUS`), within
    /// `timeout`, and returns the bus with message processing not yet started.
    package static func connect(over connection: OpaquePointer, timeout: Duration) async throws -> LocalBus {
        let bus = LocalBus(connection: connection)
        let socket = SendableHandle(OpaquePointer(g_socket_connection_get_socket(UnsafeMutablePointer(connection))))
        let deadline = MainLoop.after(timeout) { g_socket_shutdown(UnsafeMutablePointer(socket.pointer), 1, 1, nil) }
        defer { deadline.cancel() }
        do {
            bus.writeLine("\0AUTH ANONYMOUS " + "baton".utf8.map { String(format: "%02x", $0) }.joined())
            let answer = try await bus.readLine()
            guard answer.hasPrefix("OK ") else { throw authenticationError("the agent did not accept ANONYMOUS") }
            bus.writeLine("BEGIN")
            guard !bus.isClosed else { throw authenticationError("the agent closed the connection after accepting it") }
        } catch {
            bus.close()
            throw error
        }
        return bus
    }

    private func authenticateClient() async throws {
        while input.count - inputStart < 1 {
            await Readiness.readable(fd)
            guard readSome() else { throw Self.authenticationError("the client left during authentication") }
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
            await Readiness.readable(fd)
            guard readSome() else {
                throw Self.authenticationError("the connection ended during authentication (closed by the other side, or past the deadline)")
            }
        }
    }

    func writeLine(_ line: String) {
        Array((line + "\r\n").utf8).withUnsafeBytes { writeRaw($0) }
    }

    static func authenticationError(_ message: String) -> GLibError {
        GLibError(domain: ioDomain, code: gint(G_IO_ERROR_INVALID_DATA.rawValue), message: "D-Bus authentication: \(message)")
    }
}
