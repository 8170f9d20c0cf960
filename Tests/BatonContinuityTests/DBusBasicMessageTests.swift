@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// Method calls and returns of basic types read without GLib (`DBusBasicMessage`, issue 26: the
/// warm continuation's `FetchPayload(st)`, `Continued(st)` and their replies): what GLib writes
/// it reads, to the values GLib reads, and whatever a peer sends, a message it takes is one GLib
/// takes too, with the same values — everything else is left to GLib's full decoding.
final class DBusBasicMessageTests: XCTestCase {
    private let path = DeviceMethod.path, interface = DeviceMethod.interface

    /// GLib's encoding of a call of `member` with `arguments`.
    private func glibsCall(_ member: String, _ arguments: [Variant], interface: String? = DeviceMethod.interface,
                           order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN,
                           destination: String? = nil, noReply: Bool = false) throws -> [UInt8] {
        let message = g_dbus_message_new_method_call(nil, path, interface, member)!
        if let destination { g_dbus_message_set_destination(message, destination) }
        if noReply { g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) }
        return try GLibMessageBlob.bytes(of: message, arguments: arguments, serial: 77, order: order)
    }

    /// GLib's encoding of the reply with `arguments` to call 9.
    private func glibsReturn(_ arguments: [Variant], order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN,
                             sender: String? = nil) throws -> [UInt8] {
        try GLibMessageBlob.methodReturn(arguments, serial: 78, order: order, sender: sender)
    }

    /// What GLib reads from `message`, as `DBusBasicMessage.Decoded`: nil if it refuses it or it
    /// is neither a method call nor a return.
    private func glibReads(_ message: [UInt8]) -> DBusBasicMessage.Decoded? {
        var copy = message
        let decoded = copy.withUnsafeMutableBufferPointer {
            g_dbus_message_new_from_blob($0.baseAddress, gsize($0.count), G_DBUS_CAPABILITY_FLAGS_NONE, nil)
        }
        guard let decoded else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(decoded)) }
        let kind: DBusBasicMessage.Kind
        switch g_dbus_message_get_message_type(decoded) {
        case G_DBUS_MESSAGE_TYPE_METHOD_CALL:
            kind = .call(path: String(cString: g_dbus_message_get_path(decoded)),
                         interface: g_dbus_message_get_interface(decoded).map { String(cString: $0) },
                         member: String(cString: g_dbus_message_get_member(decoded)))
        case G_DBUS_MESSAGE_TYPE_METHOD_RETURN:
            kind = .reply(replySerial: g_dbus_message_get_reply_serial(decoded))
        default: return nil
        }
        var arguments: [Variant] = []
        if let body = g_dbus_message_get_body(decoded) {
            guard case .tuple(let items)? = try? Variant(reading: body) else { return nil }
            arguments = items
        }
        let noReply = g_dbus_message_get_flags(decoded).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue != 0
        return DBusBasicMessage.Decoded(kind: kind, serial: g_dbus_message_get_serial(decoded), noReplyExpected: noReply,
                                        signature: g_dbus_message_get_signature(decoded).map { String(cString: $0) } ?? "",
                                        arguments: arguments)
    }

    private func oursReads(_ message: [UInt8]) -> DBusBasicMessage.Decoded? {
        message.withUnsafeBytes { DBusBasicMessage.read($0) }
    }

    private let argumentLists: [[Variant]] = [
        [],
        [.string("3F2504E0-4F89-11D3-9A0C-0305E82C3301"), .uint64(42)],
        [.uint32(1), .uint64(.max), .string("é and more"), .bool(true), .int64(-5), .bytes(Data([1, 2, 3])), .string(""), .bool(false)],
        [.bytes(Data()), .uint64(1), .bytes(Data(count: 5000))],
    ]

    func testReadsWhatGLibAndTheWriterWriteToGLibsValues() throws {
        for arguments in argumentLists {
            for order in [G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN, G_DBUS_MESSAGE_BYTE_ORDER_BIG_ENDIAN] {
                for noReply in [false, true] {
                    let call = try glibsCall("FetchPayload", arguments, order: order, noReply: noReply)
                    let read = try XCTUnwrap(oursReads(call), "\(arguments) \(order)")
                    XCTAssertEqual(read, glibReads(call))
                    XCTAssertEqual(read.kind, .call(path: path, interface: interface, member: "FetchPayload"))
                    XCTAssertEqual(read.arguments, arguments)
                    XCTAssertEqual(read.noReplyExpected, noReply)
                }
                let reply = try glibsReturn(arguments, order: order)
                let read = try XCTUnwrap(oursReads(reply), "\(arguments) \(order)")
                XCTAssertEqual(read, glibReads(reply))
                XCTAssertEqual(read.kind, .reply(replySerial: 9))
                XCTAssertEqual(read.arguments, arguments)
            }
            let written = try XCTUnwrap(DBusBasicMessageWriter.methodCall(serial: 3, path: path, interface: interface, member: "M",
                                                                          arguments: arguments, noReplyExpected: false))
            XCTAssertEqual(oursReads(written), glibReads(written))
            let returned = try XCTUnwrap(DBusBasicMessageWriter.methodReturn(serial: 4, replySerial: 3, arguments: arguments))
            XCTAssertEqual(oursReads(returned), glibReads(returned))
        }
        let withoutInterface = try glibsCall("Ping", [], interface: nil)
        XCTAssertEqual(oursReads(withoutInterface)?.kind, .call(path: path, interface: nil, member: "Ping"))
    }

    /// Every single-byte change of the header and the body, and every truncation with its
    /// length made to agree: either the message is not taken here, or GLib takes it too and
    /// reads the same.
    func testEveryMessageTakenIsOneGLibTakesWithTheSameValues() throws {
        let originals = [
            try glibsCall("Continued", [.string("3F2504E0-4F89-11D3-9A0C-0305E82C3301"), .uint64(42)]),
            try glibsCall("M", [.bool(true), .uint32(7), .bytes(Data([0, 1, 2])), .int64(-1), .string("é")]),
            try glibsReturn([]),
            try glibsReturn([.string("x"), .bool(false), .uint64(5)]),
        ]
        var taken = 0, refused = 0
        func check(_ message: [UInt8], _ what: String) {
            guard let read = oursReads(message) else { return refused += 1 }
            taken += 1
            XCTAssertEqual(glibReads(message), read, what)
        }
        for original in originals {
            for (message, what) in GLibMessageBlob.byteChanges(of: original, first: original.count) { check(message, what) }
            let fieldsEnd = DBusFraming.fixedHeaderSize + Int(original[12]) + Int(original[13]) << 8
            let bodyStart = (fieldsEnd + 7) & ~7
            for cut in bodyStart..<original.count {
                var message = Array(original.prefix(cut))
                GLibMessageBlob.setUInt32(&message, at: 4, UInt32(cut - bodyStart))
                check(message, "cut at \(cut)")
            }
        }
        XCTAssertGreaterThan(refused, 200, "the changes to types, fields, names and lengths are not taken here")
        XCTAssertGreaterThan(taken, 20, "some changes (flags, serials, values) are still messages it reads")
    }

    /// Other shapes, each not read here (GLib then decides).
    func testOtherShapesAreLeftToGLib() throws {
        XCTAssertNil(oursReads(try glibsCall("M", [.uint64(1)], destination: ":1.1")), "a destination field")
        XCTAssertNil(oursReads(try glibsReturn([.uint64(1)], sender: ":1.1")), "a sender field")
        for arguments: [Variant] in [[.double(1)], [.boxed(.uint32(1))], [.tuple([.uint32(1)])], [.array(elementType: "s", [.string("a")])],
                                     [.dictionary(["a": .uint32(1)])]] {
            XCTAssertNil(oursReads(try glibsCall("M", arguments)), "\(arguments)")
            XCTAssertNil(oursReads(try glibsReturn(arguments)), "\(arguments)")
        }
        var error = try glibsReturn([.string("no")])
        error[1] = 3
        XCTAssertNil(oursReads(error), "an error")
        let signal = g_dbus_message_new_signal(path, interface, "S")!
        XCTAssertNil(oursReads(try GLibMessageBlob.bytes(of: signal, arguments: [.uint32(1)])), "a signal")
        var boolean = try glibsCall("M", [.bool(true)])
        boolean[boolean.count - 4] = 2
        XCTAssertNil(oursReads(boolean), "a boolean of 2")
        var serialZero = try glibsCall("M", [])
        GLibMessageBlob.setUInt32(&serialZero, at: 8, 0)
        XCTAssertNil(oursReads(serialZero), "serial 0")
    }
}
