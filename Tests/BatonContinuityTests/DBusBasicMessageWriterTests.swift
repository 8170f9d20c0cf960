@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// Method calls and returns written without GLib (`DBusBasicMessageWriter`, issue 26: the warm
/// continuation's `FetchPayload(st)` and `Continued`'s reply): byte for byte what GLib writes for
/// the same message, and arguments it does not write are left to GLib.
final class DBusBasicMessageWriterTests: XCTestCase {
    private let path = DeviceMethod.path, interface = DeviceMethod.interface

    private func glibs(_ member: String, _ arguments: [Variant], noReply: Bool) throws -> [UInt8] {
        let message = g_dbus_message_new_method_call(nil, path, interface, member)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        if noReply { g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) }
        g_dbus_message_set_serial(message, 77)
        var size: gsize = 0
        let blob = try XCTUnwrap(g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil))
        defer { g_free(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: Int(size)))
    }

    func testWrittenAsGLibWritesIt() throws {
        let cases: [(String, [Variant])] = [
            ("FetchPayload", [.uint64(7)]),
            ("Continued", [.uint64(.max)]),
            ("GetCurrent", []),
            ("OpenStreams", [.uint64(3), .uint32(9)]),
            ("X", [.uint32(1), .uint64(2), .string("é and more"), .bool(true), .int64(-5), .bytes(Data([1, 2, 3])), .string("")]),
            ("Y", [.bytes(Data()), .uint64(1), .bytes(Data(count: 5000))]),
        ]
        for (member, arguments) in cases {
            for noReply in [false, true] {
                let ours = DBusBasicMessageWriter.methodCall(serial: 77, path: path, interface: interface, member: member,
                                                             arguments: arguments, noReplyExpected: noReply)
                XCTAssertEqual(ours, try glibs(member, arguments, noReply: noReply), "\(member)\(arguments)")
            }
        }
    }

    func testOtherArgumentsAreLeftToGLib() {
        for arguments: [Variant] in [[.double(1)], [.string("a\0b")], [.dictionary([:])], [.boxed(.uint32(1))],
                                     [.tuple([.uint32(1)])], [.array(elementType: "s", [.string("a")])]] {
            XCTAssertNil(DBusBasicMessageWriter.methodCall(serial: 1, path: path, interface: interface, member: "M",
                                                           arguments: arguments, noReplyExpected: false), "\(arguments)")
            XCTAssertNil(DBusBasicMessageWriter.methodReturn(serial: 1, replySerial: 2, arguments: arguments), "\(arguments)")
        }
    }

    func testReturnsWrittenAsGLibWritesThem() throws {
        let cases: [[Variant]] = [
            [],
            [.bool(false)],
            [.string("Bench"), .uint64(3)],
            [.uint32(7), .int64(.min), .string(""), .bytes(Data([9])), .bool(true)],
        ]
        for arguments in cases {
            XCTAssertEqual(DBusBasicMessageWriter.methodReturn(serial: 78, replySerial: 9, arguments: arguments),
                           try GLibMessageBlob.methodReturn(arguments, serial: 78), "\(arguments)")
        }
    }
}
