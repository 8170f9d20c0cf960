import Foundation

/// A D-Bus client made of bytes on a Unix socket, with no library: it authenticates
/// (ANONYMOUS), then writes method calls as fast as the socket takes them and never reads a
/// reply, as a flooding client would.
final class HandMadeDBusClient {
    let fd: Int32
    private var serial: UInt32 = 0

    /// Connects to `path` and authenticates.
    init(socket path: String) throws {
        fd = try connectedSocket(path)
        try write(Array("\0AUTH ANONYMOUS 74657374\r\n".utf8))
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.last != UInt8(ascii: "\n"), line.count < 256 {
            guard read(fd, &byte, 1) == 1 else { throw POSIXError(.ECONNRESET) }
            line.append(byte)
        }
        guard line.starts(with: Array("OK ".utf8)) else { throw POSIXError(.EACCES) }
        try write(Array("BEGIN\r\n".utf8))
    }

    deinit { close(fd) }

    /// Writes a call of `member` of `interface` at `path` whose body is `body` (of `signature`):
    /// false if the agent took none of it for `timeout` seconds; throws if it closed the connection.
    @discardableResult
    func call(path: String, interface: String, member: String, signature: String = "", body: [UInt8] = [], timeout: Int32 = 30) throws -> Bool {
        serial += 1
        var fields: [UInt8] = []
        func field(_ code: UInt8, _ type: Character, _ value: String) {
            while fields.count % 8 != 0 { fields.append(0) }
            fields += [code, 1, UInt8(ascii: type.unicodeScalars.first!), 0]
            if type == "g" {
                fields.append(UInt8(value.utf8.count))
            } else {
                fields += le(UInt32(value.utf8.count))
            }
            fields += Array(value.utf8) + [0]
        }
        field(1, "o", path)
        field(2, "s", interface)
        field(3, "s", member)
        if !signature.isEmpty { field(8, "g", signature) }
        var message: [UInt8] = [UInt8(ascii: "l"), 1, 0, 1] + le(UInt32(body.count)) + le(serial) + le(UInt32(fields.count)) + fields
        while message.count % 8 != 0 { message.append(0) }
        return try write(message + body, timeout: timeout)
    }

    /// A D-Bus string in a body, at a 4-aligned offset: length, bytes, NUL, padding to 4.
    static func string(_ text: String) -> [UInt8] {
        var bytes = le(UInt32(text.utf8.count)) + Array(text.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    private func write(_ bytes: [UInt8]) throws {
        guard try write(bytes, timeout: 30) else { throw POSIXError(.ETIMEDOUT) }
    }

    /// Writes `bytes`, waiting at most `timeout` seconds for room in the socket: false if the
    /// agent took no more in that time (it stopped reading); throws if it closed the connection.
    @discardableResult
    func write(_ bytes: [UInt8], timeout: Int32) throws -> Bool {
        var at = 0
        while at < bytes.count {
            var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&entry, 1, timeout * 1000) > 0 else { return false }
            let n = bytes[at...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { continue }
            guard n > 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            at += n
        }
        return true
    }
}

private func le(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
