@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// The data signal written and read without GLib (`DBusDataSignal`, issue 26): what it writes
/// GLib reads as the same signal, what GLib writes it reads, and whatever a peer sends, a
/// message it takes is one GLib takes too, with the same values — everything else is left to
/// GLib's full decoding.
final class DBusDataSignalTests: XCTestCase {
    private let path = DeviceSignal.path, interface = DeviceSignal.interface
    private let member = DeviceSignal.Member.streamData.rawValue

    /// Our encoding of `StreamData(7, bytes)`.
    private func ours(_ bytes: Data, serial: UInt32 = 5) -> [UInt8] {
        let size = DBusDataSignal.size(path: path, interface: interface, member: member, bytes: bytes.count)
        var message = [UInt8](repeating: 0xAA, count: size)
        message.withUnsafeMutableBytes { buffer in
            bytes.withUnsafeBytes {
                DBusDataSignal.write(into: buffer, serial: serial, path: path, interface: interface, member: member, number: 7, bytes: $0)
            }
        }
        return message
    }

    /// GLib's encoding of `StreamData(7, bytes)` in `order`.
    private func glibs(_ bytes: Data, order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN) throws -> [UInt8] {
        try glibs(arguments: [.uint32(7), .bytes(bytes)], order: order)
    }

    /// GLib's encoding of the `StreamData` signal with `arguments` in `order`.
    private func glibs(arguments: [Variant], order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN) throws -> [UInt8] {
        try GLibMessageBlob.bytes(of: g_dbus_message_new_signal(path, interface, member)!, arguments: arguments, order: order)
    }

    /// What GLib reads from `message`: nil if it refuses it; else serial, path, interface,
    /// member and, for a `(uay)` body, the number and bytes.
    private struct Decoded: Equatable {
        let serial: UInt32, path: String, interface: String, member: String, number: UInt32, bytes: Data
    }

    private func glibReads(_ message: [UInt8]) -> Decoded? {
        GLibMessageBlob.read(message, as: G_DBUS_MESSAGE_TYPE_SIGNAL) { decoded, items in
            guard items.count == 2, case .uint32(let number) = items[0], case .bytes(let bytes) = items[1] else { return nil }
            let string = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } ?? "" }
            return Decoded(serial: g_dbus_message_get_serial(decoded), path: string(g_dbus_message_get_path(decoded)),
                           interface: string(g_dbus_message_get_interface(decoded)), member: string(g_dbus_message_get_member(decoded)),
                           number: number, bytes: bytes)
        }
    }

    /// What the connection takes from `message` (`DBusConnection.takeDataSignal`), in the same
    /// terms: what `DBusDataSignal.layout(of:)` reads, if its names are, byte for byte, those of
    /// a subscription (here `StreamData`'s).
    private func oursReads(_ message: [UInt8]) -> Decoded? {
        message.withUnsafeBytes { m in
            guard let layout = DBusDataSignal.layout(of: m), m[layout.path].elementsEqual(path.utf8),
                  m[layout.interface].elementsEqual(interface.utf8), m[layout.member].elementsEqual(member.utf8) else { return nil }
            let string = { (range: Range<Int>) in String(decoding: m[range], as: UTF8.self) }
            return Decoded(serial: layout.serial, path: string(layout.path), interface: string(layout.interface),
                           member: string(layout.member), number: layout.number, bytes: Data(m[layout.bytes]))
        }
    }

    func testGLibReadsWhatIsWrittenAndWhatGLibWritesIsRead() throws {
        for count in [0, 1, 3, 8, 4096, LinkStreams.chunk] {
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let expected = Decoded(serial: 5, path: path, interface: interface, member: member, number: 7, bytes: bytes)
            XCTAssertEqual(glibReads(ours(bytes)), expected, "\(count) bytes")
            XCTAssertLessThanOrEqual(ours(bytes).count, try glibs(bytes).count, "no larger than GLib's (a full chunk fits four TLS records)")
            XCTAssertEqual(oursReads(ours(bytes)), expected)
            XCTAssertEqual(oursReads(try glibs(bytes)), expected, "GLib's order of the header fields")
            XCTAssertEqual(oursReads(try glibs(bytes, order: G_DBUS_MESSAGE_BYTE_ORDER_BIG_ENDIAN)), expected, "big-endian")
        }
    }

    /// Every single-byte change of a message's header and body's start (each value a hostile
    /// peer would try: 0, 1, 0x7F, 0xFF, and the byte plus one), and every truncation with its
    /// lengths made to agree: either the message is not a data signal here, or GLib takes it
    /// too and reads the same.
    func testEveryMessageTakenIsOneGLibTakesWithTheSameValues() throws {
        let original = ours(Data("hello, stream".utf8))
        let header = original.count - 13
        var taken = 0, refused = 0
        func check(_ message: [UInt8], _ what: String) {
            guard let read = oursReads(message) else { return refused += 1 }
            taken += 1
            XCTAssertEqual(glibReads(message), read, what)
        }
        for (message, what) in GLibMessageBlob.byteChanges(of: original, first: header) { check(message, what) }
        for cut in stride(from: 16, to: original.count, by: 1) {
            var message = Array(original.prefix(cut))
            // The fixed header's body length made to agree with what is left, as a frame would be.
            let bodyStart = (16 + Int(original[12]) + 7) & ~7
            guard cut >= bodyStart else { continue }
            GLibMessageBlob.setUInt32(&message, at: 4, UInt32(cut - bodyStart))
            check(message, "cut at \(cut)")
        }
        XCTAssertGreaterThan(refused, 100, "the changes to names, types and lengths are not taken here")
        XCTAssertGreaterThan(taken, 0, "some changes (flags, serial, the number) are still data signals")
    }

    /// The ways a hostile peer would lie, each not a data signal here (GLib then decides).
    func testLyingLengthsAndOtherShapesAreNotDataSignals() throws {
        let original = ours(Data(count: 100))
        let bodyStart = original.count - 108
        func with(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var message = original
            change(&message)
            return message
        }
        let setU32 = { (message: inout [UInt8], offset: Int, value: UInt32) in GLibMessageBlob.setUInt32(&message, at: offset, value) }
        XCTAssertNotNil(oursReads(original))
        XCTAssertNil(oursReads(with { setU32(&$0, bodyStart + 4, 101) }), "the array longer than the body")
        XCTAssertNil(oursReads(with { setU32(&$0, bodyStart + 4, 99) }), "the array shorter than the body")
        XCTAssertNil(oursReads(with { setU32(&$0, bodyStart + 4, .max) }), "the array's length huge")
        XCTAssertNil(oursReads(with { setU32(&$0, 12, UInt32(bodyStart)) }), "the header fields longer than they are")
        XCTAssertNil(oursReads(with { setU32(&$0, 20, 4096) }), "the path's length past the header")
        XCTAssertNil(oursReads(with { setU32(&$0, 8, 0) }), "serial 0")
        XCTAssertNil(oursReads(with { $0[1] = 1 }), "a method call")
        XCTAssertNil(oursReads(Array(original.prefix(15))), "a truncated fixed header")
        let signature = try XCTUnwrap(original.indices.first { original[$0] == 8 && original[$0 + 2] == UInt8(ascii: "g") })
        XCTAssertNil(oursReads(with { $0[signature + 5 + 2] = UInt8(ascii: "u") }), "signature uau")
        XCTAssertNil(oursReads(try glibs(arguments: [.bytes(Data(count: 8))])), "the signature ay")
        XCTAssertNil(oursReads(try glibs(arguments: [.uint32(7), .string("text")])), "the signature us")
    }
}
