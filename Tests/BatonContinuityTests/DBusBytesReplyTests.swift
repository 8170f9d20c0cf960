@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// The bytes reply written and read without GLib (`DBusBytesReply`, issue 26: the warm
/// continuation's `FetchPayload` reply): what it writes is byte for byte what GLib writes for
/// the same reply, what GLib writes it reads, and whatever a peer sends, a message it takes is
/// one GLib takes too, with the same values — everything else is left to GLib's full decoding.
final class DBusBytesReplyTests: XCTestCase {
    /// Our encoding of the reply `(bytes)` to call 9.
    private func ours(_ bytes: Data, serial: UInt32 = 5) -> [UInt8] {
        var message = [UInt8](repeating: 0xAA, count: DBusBytesReply.size(bytes: bytes.count))
        message.withUnsafeMutableBytes { buffer in
            bytes.withUnsafeBytes { DBusBytesReply.write(into: buffer, serial: serial, replySerial: 9, bytes: $0) }
        }
        return message
    }

    /// GLib's encoding of the reply with `arguments` to call 9, as `DBusConnection` made it
    /// before (flagged "no reply expected"), in `order`.
    private func glibs(arguments: [Variant], order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN,
                       destination: String? = nil) throws -> [UInt8] {
        try GLibMessageBlob.methodReturn(arguments, order: order, destination: destination)
    }

    private struct Decoded: Equatable {
        let serial: UInt32, replySerial: UInt32, bytes: Data
    }

    /// What GLib reads from `message`: nil if it refuses it or it is not a method return of `(ay)`.
    private func glibReads(_ message: [UInt8]) -> Decoded? {
        GLibMessageBlob.read(message, as: G_DBUS_MESSAGE_TYPE_METHOD_RETURN) { decoded, items in
            guard items.count == 1, case .bytes(let bytes) = items[0] else { return nil }
            return Decoded(serial: g_dbus_message_get_serial(decoded), replySerial: g_dbus_message_get_reply_serial(decoded), bytes: bytes)
        }
    }

    private func oursReads(_ message: [UInt8]) -> Decoded? {
        message.withUnsafeBytes { m in
            DBusBytesReply.layout(of: m).map { Decoded(serial: $0.serial, replySerial: $0.replySerial, bytes: Data(m[$0.bytes])) }
        }
    }

    func testWrittenAsGLibWritesItAndReadBothWays() throws {
        for count in [0, 1, 3, 8, 400, 4096, 64 * 1024] {
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let expected = Decoded(serial: 5, replySerial: 9, bytes: bytes)
            XCTAssertEqual(ours(bytes), try glibs(arguments: [.bytes(bytes)]), "\(count) bytes: byte for byte GLib's")
            XCTAssertEqual(glibReads(ours(bytes)), expected)
            XCTAssertEqual(oursReads(ours(bytes)), expected)
            XCTAssertEqual(oursReads(try glibs(arguments: [.bytes(bytes)], order: G_DBUS_MESSAGE_BYTE_ORDER_BIG_ENDIAN)), expected,
                           "big-endian")
        }
    }

    /// Every single-byte change of the header and the body's start, and every truncation with
    /// its lengths made to agree: either the message is not a bytes reply here, or GLib takes it
    /// too and reads the same.
    func testEveryMessageTakenIsOneGLibTakesWithTheSameValues() throws {
        let original = ours(Data("a payload".utf8))
        var taken = 0, refused = 0
        func check(_ message: [UInt8], _ what: String) {
            guard let read = oursReads(message) else { return refused += 1 }
            taken += 1
            XCTAssertEqual(glibReads(message), read, what)
        }
        for (message, what) in GLibMessageBlob.byteChanges(of: original, first: DBusBytesReply.bodyStart + 4) { check(message, what) }
        for cut in DBusBytesReply.bodyStart..<original.count {
            var message = Array(original.prefix(cut))
            GLibMessageBlob.setUInt32(&message, at: 4, UInt32(cut - DBusBytesReply.bodyStart))
            check(message, "cut at \(cut)")
        }
        XCTAssertGreaterThan(refused, 50, "the changes to types, fields and lengths are not taken here")
        XCTAssertGreaterThan(taken, 0, "some changes (flags, serials, the bytes) are still bytes replies")
    }

    /// Other shapes, each not a bytes reply here (GLib then decides).
    func testOtherShapesAreNotBytesReplies() throws {
        XCTAssertNil(oursReads(try glibs(arguments: [.string("text")])), "the signature s")
        XCTAssertNil(oursReads(try glibs(arguments: [.bytes(Data(count: 4)), .uint32(1)])), "the signature ayu")
        XCTAssertNil(oursReads(try glibs(arguments: [])), "an empty reply")
        XCTAssertNil(oursReads(try glibs(arguments: [.bytes(Data(count: 4))], destination: ":1.1")), "a destination field")
        var lying = ours(Data(count: 10))
        lying[DBusBytesReply.bodyStart] = 11
        XCTAssertNil(oursReads(lying), "the array longer than the body")
        var error = ours(Data(count: 10))
        error[1] = 3
        XCTAssertNil(oursReads(error), "an error")
    }
}
