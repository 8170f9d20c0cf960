@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import Synchronization
import XCTest
@testable import BatonAgent

/// The app↔agent D-Bus connection (`LocalBus`) over a real socket pair on the loop: calls,
/// replies, D-Bus errors and signals between its two ends; the deadlines and the end of the
/// connection failing waiting calls; the caps (a message refused from its fixed header, a peer
/// that never reads cut off); the authentication a D-Bus client must pass; and both directions
/// of interoperation with GDBus (a GDBus client, as any D-Bus tool is, and a GDBus server, as an
/// older agent is).
final class LocalBusTests: XCTestCase {
    static let interfaceXML = """
        <node>
          <interface name="org.baton.Test1">
            <method name="Echo"><arg direction="in" type="s"/><arg direction="out" type="s"/></method>
            <method name="Fail"/>
            <method name="Hold"/>
            <method name="Note"><arg direction="in" type="u"/></method>
          </interface>
        </node>
        """
    nonisolated(unsafe) static let info: UnsafeMutablePointer<GDBusInterfaceInfo> = {
        let node = g_dbus_node_info_new_for_xml(interfaceXML, nil)!
        return g_dbus_interface_info_ref(node.pointee.interfaces[0])
    }()
    static let path = "/org/baton/Test1", name = "org.baton.Test1"

    /// What the serving end saw and holds.
    @MainActor final class Server {
        var held: [MethodCall] = []
        var notes: [UInt32] = []
        func serve(_ bus: LocalBus) {
            bus.export(path: LocalBusTests.path, info: LocalBusTests.info) { [unowned self] call in
                switch call.method {
                case "Echo": call.reply(call.arguments)
                case "Fail": call.fail("org.baton.Test1.Error.Nope", "no, on purpose")
                case "Hold": held.append(call)
                case "Note": if case .uint32(let value)? = call.arguments.first { notes.append(value) }
                default: XCTFail("unexpected \(call.method)")
                }
            }
        }
    }

    func testCallsRepliesErrorsAndSignalsCrossBothWays() throws {
        try MainActor.assumeIsolated {
            let (client, server, served) = try Self.servedPair()
            defer { client.close(); server.close() }

            XCTAssertEqual(try runToEnd { try await client.call(Self.path, Self.name, "Echo", [.string("hello")], replyType: "(s)", timeout: .seconds(10)) },
                           [.string("hello")])
            XCTAssertEqual(try runToEnd { try await client.call("/", "org.freedesktop.DBus.Peer", "Ping", [], replyType: "()", timeout: .seconds(10)) }, [])
            // Introspection, as GDBus answers it: the interface at its path, child nodes above it.
            let here = try runToEnd { try await client.call(Self.path, "org.freedesktop.DBus.Introspectable", "Introspect", [], replyType: "(s)", timeout: .seconds(10)) }
            guard case .string(let xml)? = here.first else { return XCTFail("no introspection XML") }
            XCTAssertTrue(xml.contains("<interface name=\"org.baton.Test1\">") && xml.contains("<method name=\"Echo\">"), xml)
            let root = try runToEnd { try await client.call("/", "org.freedesktop.DBus.Introspectable", "Introspect", [], replyType: "(s)", timeout: .seconds(10)) }
            guard case .string(let rootXML)? = root.first else { return XCTFail("no introspection XML for /") }
            XCTAssertTrue(rootXML.contains("<node name=\"org\"/>") && !rootXML.contains("<interface"), rootXML)
            XCTAssertEqual(Self.remoteError { try await client.call(Self.path, Self.name, "Fail", [], replyType: "()", timeout: .seconds(10)) },
                           "org.baton.Test1.Error.Nope: no, on purpose")
            XCTAssertEqual(Self.remoteError { try await client.call(Self.path, Self.name, "Echo", [.uint32(1)], replyType: "(s)", timeout: .seconds(10)) }?
                            .hasPrefix("org.freedesktop.DBus.Error.InvalidArgs: "), true, "arguments of the wrong type")
            XCTAssertEqual(Self.remoteError { try await client.call(Self.path, Self.name, "Nothing", [], replyType: "()", timeout: .seconds(10)) }?
                            .hasPrefix("org.freedesktop.DBus.Error.UnknownMethod: "), true)
            XCTAssertEqual(Self.remoteError { try await client.call("/elsewhere", Self.name, "Echo", [.string("x")], replyType: "(s)", timeout: .seconds(10)) }?
                            .hasPrefix("org.freedesktop.DBus.Error.UnknownObject: "), true)
            XCTAssertEqual(Self.remoteError { try await client.call(Self.path, "org.baton.Other1", "Echo", [.string("x")], replyType: "(s)", timeout: .seconds(10)) }?
                            .hasPrefix("org.freedesktop.DBus.Error.UnknownInterface: "), true)
            // A reply of another type than asked for fails the call (G_IO_ERROR_INVALID_ARGUMENT, as GDBus).
            XCTAssertThrowsError(try runToEnd { try await client.call(Self.path, Self.name, "Echo", [.string("x")], replyType: "(u)", timeout: .seconds(10)) }) {
                XCTAssertEqual(($0 as? GLibError)?.isIOError(G_IO_ERROR_INVALID_ARGUMENT), true, "\($0)")
            }

            // Calls sent without a reply arrive in order, before a call made after them.
            for value in [UInt32(3), 1, 2] { try client.send(Self.path, Self.name, "Note", [.uint32(value)]) }
            _ = try runToEnd { try await client.call(Self.path, Self.name, "Echo", [.string("after")], replyType: "(s)", timeout: .seconds(10)) }
            XCTAssertEqual(served.notes, [3, 1, 2])

            // Signals reach the subscription for their member only, until it ends.
            var heard: [[Variant]] = []
            let subscription = client.subscribe(Self.path, Self.name, "Changed") { heard.append($0) }
            server.emit(Self.path, Self.name, "Changed", [.string("one")])
            server.emit(Self.path, Self.name, "Other", [.string("not this")])
            spin(until: { heard.count == 1 })
            client.unsubscribe(subscription)
            server.emit(Self.path, Self.name, "Changed", [.string("two")])
            _ = try runToEnd { try await client.call("/", "org.freedesktop.DBus.Peer", "Ping", [], replyType: "()", timeout: .seconds(10)) }
            XCTAssertEqual(heard, [[.string("one")]])
        }
    }

    /// A call past its timeout fails with `G_IO_ERROR_TIMED_OUT`; a call dropped unanswered by
    /// the other side is answered with an error; when one end closes, the other end's waiting
    /// calls fail with `G_IO_ERROR_CLOSED`, and both ends hear of the end once.
    func testDeadlinesAndTheEndOfTheConnectionFailWaitingCalls() throws {
        try MainActor.assumeIsolated {
            let (client, server, served) = try Self.servedPair()
            defer { client.close(); server.close() }
            var ends = (client: 0, server: 0)
            client.onClosed { ends.client += 1 }
            server.onClosed { ends.server += 1 }

            XCTAssertThrowsError(try runToEnd { try await client.call(Self.path, Self.name, "Hold", [], replyType: "()", timeout: .milliseconds(100)) }) {
                XCTAssertEqual(($0 as? GLibError)?.isIOError(G_IO_ERROR_TIMED_OUT), true, "\($0)")
            }
            XCTAssertEqual(served.held.count, 1)
            served.held.removeAll()  // dropped unanswered: answered with an error on the way out

            var dropped: Result<[Variant], any Error>?
            Task { @MainActor in dropped = await result { try await client.call(Self.path, Self.name, "Hold", [], replyType: "()", timeout: .seconds(10)) } }
            spin(until: { served.held.count == 1 })
            served.held.removeAll()
            spin(until: { dropped != nil })
            XCTAssertThrowsError(try dropped!.get()) { XCTAssertNotNil(($0 as? GLibError)?.remoteDBusErrorName, "\($0)") }

            var waiting: Result<[Variant], any Error>?
            Task { @MainActor in waiting = await result { try await client.call(Self.path, Self.name, "Hold", [], replyType: "()", timeout: .seconds(10)) } }
            spin(until: { served.held.count == 1 })
            server.close()
            spin(until: { waiting != nil && ends.client == 1 && ends.server == 1 })
            XCTAssertThrowsError(try waiting!.get()) { XCTAssertEqual(($0 as? GLibError)?.isIOError(G_IO_ERROR_CLOSED), true, "\($0)") }
            XCTAssertTrue(client.isClosed)
            XCTAssertThrowsError(try runToEnd { try await client.call("/", "org.freedesktop.DBus.Peer", "Ping", [], replyType: "()", timeout: .seconds(1)) })
            client.close()
            _ = MainLoop.run(until: { false }, timeout: .milliseconds(50))
            XCTAssertEqual(ends.client, 1, "told of the end once")
            XCTAssertEqual(ends.server, 1, "told of the end once")
        }
    }

    /// A message whose fixed header announces a body past the cap closes the connection when
    /// those 16 bytes arrive (nothing more is sent or waited for); so does a malformed message.
    func testMessagesPastTheCapsOrMalformedCloseTheConnection() throws {
        try MainActor.assumeIsolated {
            for bytes in [Self.fixedHeader(body: UInt32(LocalBus.maximumMessageBody + 1), fields: 0),
                          Self.fixedHeader(body: 0, fields: UInt32(LocalBus.maximumHeaderFields + 8)),
                          Array("GET / HTTP/1.1\r\n\r\n".utf8) + [UInt8](repeating: 0, count: 16),
                          Self.fixedHeader(body: 0, fields: 16) + [UInt8](repeating: 0xFF, count: 16)] {
                let (fd, server) = try Self.rawClientAndServer()
                defer { close(fd); server.close() }
                let served = Server()
                served.serve(server)
                server.startMessageProcessing()
                XCTAssertEqual(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, bytes.count)
                spin(until: { server.isClosed })
                XCTAssertTrue(closedByPeer(fd, timeout: 5), "the other end was not closed")
            }
        }
    }

    /// The authentication a client must pass: a NUL byte, then only `ANONYMOUS` is accepted
    /// (with or without its trace); no file-descriptor passing; a client that never begins, or
    /// sends more lines than the cap, is refused.
    func testAuthenticationAcceptsOnlyAnonymousWithinItsCaps() throws {
        try MainActor.assumeIsolated {
            let serving = try Serving()
            defer { close(serving.peer) }
            var answers: [UInt8] = []
            let watch = MainLoop.whenReadable(serving.peer) {
                var bytes = [UInt8](repeating: 0, count: 256)
                let n = read(serving.peer, &bytes, bytes.count)
                guard n > 0 else { return .stop }
                answers += bytes[0..<n]
                return .again
            }
            defer { watch.cancel() }
            @MainActor func exchange(_ line: String) -> String {
                serving.write(line + "\r\n")
                spin(until: { answers.firstRange(of: [13, 10]) != nil })
                let end = answers.firstRange(of: [13, 10])!
                defer { answers.removeSubrange(..<end.upperBound) }
                return String(decoding: answers[..<end.lowerBound], as: UTF8.self)
            }
            XCTAssertEqual(exchange("\0AUTH"), "REJECTED ANONYMOUS")
            XCTAssertEqual(exchange("AUTH EXTERNAL 30"), "REJECTED ANONYMOUS")
            XCTAssertEqual(exchange("BEGIN"), "ERROR", "BEGIN before OK")
            XCTAssertTrue(exchange("AUTH ANONYMOUS").hasPrefix("OK "))
            XCTAssertTrue(exchange("NEGOTIATE_UNIX_FD").hasPrefix("ERROR"))
            serving.write("BEGIN\r\n")
            try serving.bus().close()

            // More lines than the cap, and a first byte that is not NUL: refused.
            for opening in ["\0" + String(repeating: "AUTH\r\n", count: LocalBus.maximumLines + 1), "AUTH ANONYMOUS\r\n"] {
                let refused = try Serving()
                defer { close(refused.peer) }
                refused.write(opening)
                XCTAssertThrowsError(try refused.bus())
                XCTAssertTrue(closedByPeer(refused.peer, timeout: 5))
            }
        }
    }

    /// Messages split anywhere across reads are put back together: a call written a byte at a
    /// time, three calls in one write, a call whose body is larger than one read (100 KB). A
    /// call sent without asking for a reply gets none. An authentication line over 512 bytes is
    /// refused.
    func testMessagesAreReassembledAcrossReadsAndNoReplyMeansNone() throws {
        try MainActor.assumeIsolated {
            let (fd, server) = try Self.rawClientAndServer()
            defer { close(fd); server.close() }
            let served = Server()
            served.serve(server)
            server.startMessageProcessing()
            let peer = RawPeer(fd)
            defer { peer.stop() }

            peer.writeSlowly(Self.call("Echo", [.string("byte by byte")], serial: 1))
            XCTAssertEqual(peer.replies(1).map(\.text), ["1: byte by byte"])
            peer.write(Self.call("Echo", [.string("a")], serial: 2) + Self.call("Echo", [.string("b")], serial: 3)
                       + Self.call("Echo", [.string("c")], serial: 4))
            XCTAssertEqual(peer.replies(3).map(\.text), ["2: a", "3: b", "4: c"])
            let large = String(repeating: "x", count: 100_000)
            peer.write(Self.call("Echo", [.string(large)], serial: 5))
            XCTAssertEqual(peer.replies(1).map(\.text), ["5: " + large])
            peer.write(Self.call("Note", [.uint32(7)], serial: 6, noReply: true) + Self.call("Echo", [.string("after")], serial: 7))
            XCTAssertEqual(peer.replies(1).map(\.text), ["7: after"], "the call sent without a reply was answered")
            XCTAssertEqual(served.notes, [7])
            XCTAssertFalse(server.isClosed)
        }
        try MainActor.assumeIsolated {
            let refused = try Serving()
            defer { close(refused.peer) }
            refused.write("\0AUTH ANONYMOUS " + String(repeating: "61", count: 300) + "\r\n")
            XCTAssertThrowsError(try refused.bus(), "a 617-byte authentication line was taken")
        }
    }

    /// A peer that reads, but never all of it: the bytes the bus holds stay those not yet sent,
    /// plus less than one read's worth, however much was written in all.
    func testWhatThePeerReadIsGivenBack() throws {
        try MainActor.assumeIsolated {
            let (fd, server) = try Self.rawClientAndServer()
            defer { close(fd); server.close() }
            server.startMessageProcessing()
            let chunk = Data(repeating: 7, count: 60 * 1024)
            var drained = 0  // what the peer read
            var buffer = [UInt8](repeating: 0, count: 40 * 1024)
            var largestSurplus = 0
            for _ in 0..<300 {  // 18 MB written, 12 MB read: the queue grows by 20 KB a round
                server.emit(Self.path, Self.name, "Changed", [.bytes(chunk)])
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n > 0 { drained += n }
                _ = MainLoop.run(until: { false }, timeout: .zero)  // the write watch runs
                largestSurplus = max(largestSurplus, server.heldOutputBytes - server.unsentOutputBytes)
            }
            XCTAssertGreaterThan(drained, 10_000_000)
            XCTAssertFalse(server.isClosed, "a peer that reads was cut off")
            XCTAssertLessThan(largestSurplus, LocalBus.readChunk, "sent bytes were kept")
        }
    }

    /// A peer that has sent much at once does not hold the loop: one turn of the read watch
    /// takes at most `bytesPerTurn`, and a source of higher priority that became ready during
    /// that turn runs before the rest is read. Everything arrives, in order.
    func testAPeerThatSentMuchAtOnceDoesNotHoldTheLoop() throws {
        try MainActor.assumeIsolated {
            let (fd, server) = try Self.rawClientAndServer()
            defer { close(fd); server.close() }
            var room = Int32(4 * 1024 * 1024)
            if setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &room, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &room, socklen_t(MemoryLayout<Int32>.size))
            }
            var handled: [UInt32] = []
            var handledWhenTheLoopTurned: Int?
            server.export(path: Self.path, info: Self.info) { call in
                if case .uint32(let value)? = call.arguments.first { handled.append(value) }
                if handled.count == 1 { MainLoop.idle(priority: .high) { handledWhenTheLoopTurned = handled.count } }
            }
            var bytes: [UInt8] = []
            var count: UInt32 = 0
            while bytes.count < 3 * LocalBus.bytesPerTurn {
                count += 1
                bytes += Self.call("Note", [.uint32(count)], serial: count, noReply: true)
            }
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard sent == bytes.count else { throw XCTSkip("the socket took \(sent) of the \(bytes.count) bytes sent at once") }
            server.startMessageProcessing()
            spin(until: { handled.count == Int(count) && handledWhenTheLoopTurned != nil })
            XCTAssertEqual(handled, Array(1...count))
            let turned = try XCTUnwrap(handledWhenTheLoopTurned)
            XCTAssertLessThan(turned, Int(count) / 2, "the connection handled \(turned) of \(count) messages before the loop turned")
            XCTAssertFalse(server.isClosed)
        }
    }

    /// A peer that never reads what is sent to it: once more than `maximumQueuedOutput` bytes
    /// wait, the connection is closed rather than the memory growing.
    func testAPeerThatNeverReadsIsCutOffPastTheQueueCap() throws {
        try MainActor.assumeIsolated {
            let (fd, server) = try Self.rawClientAndServer()
            defer { close(fd); server.close() }
            server.startMessageProcessing()
            let chunk = Data(repeating: 7, count: 60 * 1024)
            var emitted = 0
            while !server.isClosed && emitted < 2 * LocalBus.maximumQueuedOutput / chunk.count {
                server.emit(Self.path, Self.name, "Changed", [.bytes(chunk)])
                emitted += 1
                if emitted == 8 { XCTAssertTrue(server.unsentOutputBytes > 0, "the socket took 480 KiB unread") }
            }
            XCTAssertTrue(server.isClosed, "\(emitted) signals of 60 KiB queued for a peer that never reads")
            XCTAssertLessThanOrEqual(emitted * chunk.count, LocalBus.maximumQueuedOutput + 2 * 1024 * 1024)
        }
    }

    /// GDBus on either end: a GDBus client (as any D-Bus library in peer-to-peer mode) calls the
    /// LocalBus end; a LocalBus client calls a GDBus server (as an agent built on GDBus).
    func testInteroperatesWithGDBusOnEitherEnd() throws {
        try MainActor.assumeIsolated {
            let serving = try Serving()
            let gdbusClient = try Self.connection(serving.peer)
            var gdbus: SendableHandle?
            var failure: (any Error)?
            Task { @MainActor in
                do {
                    gdbus = SendableHandle(try await PeerBusClient.open(gdbusClient))
                } catch { failure = error }
            }
            spin(until: { gdbus != nil || failure != nil })
            XCTAssertNil(failure)
            let bus = try serving.bus()
            defer { bus.close() }
            let served = Server()
            served.serve(bus)
            bus.startMessageProcessing()
            let connection = try XCTUnwrap(gdbus).pointer
            defer {
                g_dbus_connection_close_sync(connection, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(connection))
            }
            let reply = SharedText()
            let handle = SendableHandle(connection)
            let thread = Thread {
                var error: UnsafeMutablePointer<GError>?
                if let value = g_dbus_connection_call_sync(handle.pointer, nil, Self.path, Self.name, "Echo",
                                                           try? Variant.tuple([.string("from GDBus")]).makeGVariant(),
                                                           nil, G_DBUS_CALL_FLAGS_NONE, 10_000, nil, &error) {
                    if case .tuple(let items)? = try? Variant(reading: value), case .string(let text)? = items.first {
                        reply.text.withLock { $0 = text }
                    }
                    g_variant_unref(value)
                } else if let error {
                    reply.text.withLock { $0 = "failed: \(GLibError(consuming: error))" }
                }
                MainLoop.context.wakeUp()  // the loop sees the answer
            }
            thread.start()
            spin(until: { reply.text.withLock { $0 } != nil })
            XCTAssertEqual(reply.text.withLock { $0 }, "from GDBus")

            // A LocalBus client against a GDBus server.
            var pair: [Int32] = [0, 0]
            XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
            var gdbusServer: SendableHandle?
            var client: LocalBus?
            Task { @MainActor in
                do { gdbusServer = SendableHandle(try await PeerBusClient.open(try Self.connection(pair[0]), serving: true)) } catch { failure = error }
            }
            Task { @MainActor in
                do { client = try await LocalBus.connect(over: try Self.connection(pair[1]), timeout: .seconds(10)) } catch { failure = error }
            }
            spin(until: { (gdbusServer != nil && client != nil) || failure != nil })
            XCTAssertNil(failure)
            client?.startMessageProcessing()
            defer {
                client?.close()
                if let server = gdbusServer?.pointer {
                    g_dbus_connection_close_sync(server, nil, nil)
                    g_object_unref(UnsafeMutableRawPointer(server))
                }
            }
            XCTAssertEqual(try runToEnd { try await client!.call("/", "org.freedesktop.DBus.Peer", "Ping", [], replyType: "()", timeout: .seconds(10)) }, [])
        }
    }

    // MARK: Helpers

    /// The socket connections made for this test, released when it ends (on the main thread).
    nonisolated(unsafe) private static var made: [OpaquePointer] = []

    override func tearDown() {
        for connection in Self.made { g_object_unref(UnsafeMutableRawPointer(connection)) }
        Self.made = []
        super.tearDown()
    }

    /// A connected pair: the client end authenticated to the serving end.
    @MainActor
    static func connectedPair() throws -> (client: LocalBus, server: LocalBus) {
        let serving = try Serving()
        let clientEnd = try connection(serving.peer)
        let client = try runToEnd { try await LocalBus.connect(over: clientEnd, timeout: .seconds(10)) }
        return (client, try serving.bus())
    }

    /// A connected pair whose serving end serves `org.baton.Test1` (`Server`), both processing.
    @MainActor
    static func servedPair() throws -> (client: LocalBus, server: LocalBus, served: Server) {
        let (client, server) = try connectedPair()
        let served = Server()
        served.serve(server)
        server.startMessageProcessing()
        client.startMessageProcessing()
        return (client, server, served)
    }

    /// A serving end, and the other end's descriptor after it authenticated by hand.
    @MainActor
    static func rawClientAndServer() throws -> (Int32, LocalBus) {
        let serving = try Serving()
        serving.write("\0AUTH ANONYMOUS\r\nBEGIN\r\n")
        let server = try serving.bus()
        var ok = [UInt8](repeating: 0, count: 64)
        _ = read(serving.peer, &ok, ok.count)  // "OK <guid>\r\n"
        return (serving.peer, server)
    }

    /// A `GSocketConnection *` owning `fd`; the test's reference goes in `tearDown` (a bus or
    /// GDBus holds its own).
    static func connection(_ fd: Int32) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new_from_fd(fd, &error) else { throw GLibError(consuming: error!) }
        defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
        let connection = OpaquePointer(g_socket_connection_factory_create_connection(socket)!)
        made.append(connection)
        return connection
    }

    /// The bytes of a call of `method` of `org.baton.Test1` with `arguments`, as GDBus encodes it.
    static func call(_ method: String, _ arguments: [Variant], serial: UInt32, noReply: Bool = false) -> [UInt8] {
        let message = g_dbus_message_new_method_call(nil, path, name, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try? Variant.tuple(arguments).makeGVariant())
        g_dbus_message_set_serial(message, serial)
        if noReply { g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) }
        var size: gsize = 0
        let blob = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil)!
        defer { g_free(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: Int(size)))
    }

    /// The fixed header of a little-endian method call announcing `body` and `fields` bytes.
    static func fixedHeader(body: UInt32, fields: UInt32) -> [UInt8] {
        func le(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return [UInt8(ascii: "l"), 1, 0, 1] + le(body) + le(1) + le(fields)
    }

    /// "NAME: message" of the D-Bus error a call failed with, nil if it did not fail so.
    @MainActor
    static func remoteError(_ body: @escaping @MainActor () async throws -> [Variant]) -> String? {
        do {
            _ = try runToEnd(body)
            return nil
        } catch let error as GLibError {
            return error.remoteDBusErrorName.map { "\($0): \(error.message)" }
        } catch {
            return nil
        }
    }
}

/// A GDBus connection over a socket connection: a client (ANONYMOUS offered as GDBus does), or
/// a server that allows ANONYMOUS (as an agent built on GDBus did).
enum PeerBusClient {
    @MainActor
    static func open(_ connection: OpaquePointer, serving: Bool = false) async throws -> OpaquePointer {
        let stream = SendableHandle(connection)
        let opened: SendableHandle = try await GIOAsync.call { cancellable, callback, userData in
            let base = UnsafeMutableRawPointer(stream.pointer).assumingMemoryBound(to: GIOStream.self)
            if serving {
                let guid = g_dbus_generate_guid()
                defer { g_free(guid) }
                let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER.rawValue
                    | G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS.rawValue)
                g_dbus_connection_new(base, guid, flags, nil, cancellable, callback, userData)
            } else {
                g_dbus_connection_new(base, nil, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, nil, cancellable, callback, userData)
            }
        } finish: { result, error in
            g_dbus_connection_new_finish(result, error).map { SendableHandle($0) }
        }
        return opened.pointer
    }
}

/// Text written on one thread and read on another.
final class SharedText: Sendable {
    let text = Mutex<String?>(nil)
}

/// The other end of a socket, driven by hand: writes bytes (all at once, or one at a time with a
/// turn of the loop between them) and decodes the replies it reads, on the loop.
@MainActor
final class RawPeer {
    struct Reply { let text: String }
    private let fd: Int32
    private var received: [UInt8] = []
    private var watch: LoopSource?

    init(_ fd: Int32) {
        self.fd = fd
        watch = MainLoop.whenReadable(fd) { [unowned self] in
            var bytes = [UInt8](repeating: 0, count: 64 * 1024)
            let n = recv(fd, &bytes, bytes.count, Int32(MSG_DONTWAIT))
            if n > 0 { received += bytes[0..<n] }
            return n == 0 ? .stop : .again
        }
    }

    func stop() { watch?.cancel() }

    func write(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {  // a large write waits for the loop to read
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                offset += n
            } else {  // full: the other end reads on the loop; wait until this end may write again
                var writable = false
                let ready = MainLoop.whenWritable(fd) { writable = true; return .stop }
                spin(until: { writable })
                ready.cancel()
            }
        }
    }

    func writeSlowly(_ bytes: [UInt8]) {
        for byte in bytes {
            write([byte])
            _ = MainLoop.run(until: { false }, timeout: .zero)  // the other end reads what came
        }
    }

    /// The next `count` replies, each "REPLY_SERIAL: first string of the body".
    func replies(_ count: Int) -> [Reply] {
        var replies: [Reply] = []
        spin(until: {
            while replies.count < count, received.count >= 16 {
                var error: UnsafeMutablePointer<GError>?
                let needed = received.withUnsafeBufferPointer { g_dbus_message_bytes_needed(UnsafeMutablePointer(mutating: $0.baseAddress), 16, &error) }
                guard needed > 0, received.count >= needed else { break }
                let message = received.withUnsafeMutableBufferPointer {
                    g_dbus_message_new_from_blob($0.baseAddress, gsize(needed), G_DBUS_CAPABILITY_FLAGS_NONE, nil)
                }!
                received.removeFirst(needed)
                var text = "\(g_dbus_message_get_reply_serial(message)): "
                if let body = g_dbus_message_get_body(message), case .tuple(let items)? = try? Variant(reading: body),
                   case .string(let first)? = items.first { text += first }
                g_object_unref(UnsafeMutableRawPointer(message))
                replies.append(Reply(text: text))
            }
            return replies.count >= count
        })
        return replies
    }
}

/// A socket pair whose first end is being served (`LocalBus.serve(over:)`) from the start;
/// `peer` is the other end's descriptor (the test closes it, or hands it to a connection).
@MainActor
final class Serving {
    let peer: Int32
    private var outcome: Result<LocalBus, any Error>?

    init() throws {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw POSIXError(.EMFILE) }
        peer = fds[1]
        let end = try LocalBusTests.connection(fds[0])
        Task { @MainActor in self.outcome = await result { try await LocalBus.serve(over: end) } }
    }

    /// Writes `text` on the peer's end.
    func write(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(peer, $0.baseAddress, $0.count) }
    }

    /// The served end once its authentication has ended, or why it failed.
    func bus() throws -> LocalBus {
        spin(until: { outcome != nil })
        return try outcome!.get()
    }
}
