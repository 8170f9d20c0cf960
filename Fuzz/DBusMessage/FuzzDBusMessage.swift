@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import FuzzSupport
import Logging

// The bytes a peer sends on a D-Bus connection once authenticated — a device link, or an app's
// connection to its agent: `DBusConnection`'s framing (`DBusFraming`, the size check before a
// body is read), GLib's decoding (`g_dbus_message_new_from_blob`) and the dispatch of calls,
// replies and signals, read on the loop from a real socket.
//
// Input: the bytes after BEGIN. The serving end exports org.baton.Device1 (each call answered
// at once), as a device does. A run ends when the connection does: the input's end, or a refusal.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDBusMessage(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    MainActor.assumeIsolated { feed(input) }
    return 0
}

/// Serves one connection on a socket pair, writes `input` from the other end and closes it,
/// and runs the loop until the connection has ended.
@MainActor
private func feed(_ input: Data) {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { fatalError("fuzz: no socket pair") }
    var size = Int32(1 << 20)
    setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    guard let socket = g_socket_new_from_fd(fds[0], nil) else { fatalError("fuzz: no socket") }
    let connection = g_socket_connection_factory_create_connection(socket)!
    let bus = DBusConnection(stream: UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self), socket: socket,
                             log: Logger(label: "fuzz"), kind: "connection", fallbackErrorName: DeviceInterface.ErrorName.failed)
    g_object_unref(connection)
    g_object_unref(socket)
    bus.export(path: DeviceInterface.path, info: DeviceInterface.info) { call in call.reply([]) }
    // StreamData, as a link's streams take it: read directly (`DBusDataSignal`) when it is one.
    bus.subscribe(DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue) { _ in }
    bus.startMessageProcessing()
    var written = 0
    input.withUnsafeBytes { bytes in
        while written < bytes.count {
            let n = send(fds[1], bytes.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL))
            if n <= 0 { break }
            written += n
        }
    }
    shutdown(fds[1], Int32(SHUT_WR))
    while !bus.isClosed { MainLoop.context.iterate(mayBlock: true) }
    while MainLoop.context.iterate(mayBlock: false) {}
    close(fds[1])
}

/// `StreamData` of `count` bytes as a link writes it (`DBusDataSignal`): large ones are read
/// into a buffer of their own.
private func streamData(count: Int) -> Data {
    let (path, interface, member) = (DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue)
    var message = Data(count: DBusDataSignal.size(path: path, interface: interface, member: member, bytes: count))
    message.withUnsafeMutableBytes { buffer in
        Data(count: count).withUnsafeBytes {
            DBusDataSignal.write(into: buffer, serial: 5, path: path, interface: interface, member: member, number: 1, bytes: $0)
        }
    }
    return message
}

/// A call, a signal, a reply and an error of org.baton.Device1, as GLib encodes them, two
/// calls in one input, and `StreamData` as a link writes it, small and large.
private func seeds() throws -> [String: Data] {
    func blob(_ message: OpaquePointer, serial: UInt32) -> Data {
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_serial(message, serial)
        var size: gsize = 0
        let bytes = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil)!
        defer { g_free(bytes) }
        return Data(bytes: bytes, count: Int(size))
    }
    func call(_ method: String, _ arguments: [Variant]) throws -> Data {
        let message = g_dbus_message_new_method_call(nil, DeviceInterface.path, DeviceInterface.name, method)!
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        return blob(message, serial: 1)
    }
    let signal = g_dbus_message_new_signal(DeviceInterface.path, DeviceInterface.name, "CurrentChanged")!
    g_dbus_message_set_body(signal, try Variant.tuple([.dictionary(["title": .string("Notes")])]).makeGVariant())
    let reply = g_dbus_message_new()!
    g_dbus_message_set_message_type(reply, G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
    g_dbus_message_set_reply_serial(reply, 1)
    g_dbus_message_set_body(reply, try Variant.tuple([.bytes(Data("payload".utf8))]).makeGVariant())
    let error = g_dbus_message_new()!
    g_dbus_message_set_message_type(error, G_DBUS_MESSAGE_TYPE_ERROR)
    g_dbus_message_set_reply_serial(error, 1)
    g_dbus_message_set_error_name(error, DeviceInterface.ErrorName.notCurrent)
    return [
        "signal-stream-data": streamData(count: 3),
        "signal-stream-data-large": streamData(count: 20 * 1024),
        "call-fetch-payload": try call("FetchPayload", [.uint64(7)]),
        "call-get-current": try call("GetCurrent", []),
        "signal-current-changed": blob(signal, serial: 2),
        "reply": blob(reply, serial: 3),
        "error": blob(error, serial: 4),
        "two-calls": try call("GetRevocations", []) + call("Continued", [.uint64(7)]),
    ]
}

FuzzDriver.run(fuzzDBusMessage)
