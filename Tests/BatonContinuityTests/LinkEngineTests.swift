@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import CGLib
import Foundation
import XCTest

/// Links run on Baton's own D-Bus engine (`DBusConnection`) on the loop thread: a device
/// process holding a link has no GDBus worker thread, and a malformed message from a device of
/// the group closes the link with one short log line — never a dump of the peer's bytes. Each
/// test runs a real device process (`DeviceProbe`).
final class LinkEngineTests: TrustTestCase {
    nonisolated(unsafe) private var probes: [RunningProcess] = []

    override func tearDownWithError() throws {
        for probe in probes { probe.terminate() }
        probes = []
        try super.tearDownWithError()
    }

    private func startProbe(_ authority: GroupAuthority, _ name: String) throws -> (RunningProcess, PeerAddress) {
        let folder = root.appendingPathComponent(name)
        try authority.issueDevice(named: name).write(to: folder)
        let probe = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"])
        probes.append(probe)
        return (probe, try XCTUnwrap(probe.listeningAddress(), probe.output))
    }

    /// A device that has linked (and answered and made calls over the link) has no thread
    /// named "gdbus": GDBus's worker, which carried every message of a link before.
    func testADeviceHoldingALinkHasNoGDBusWorkerThread() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (probe, address) = try startProbe(authority, "A")
        let b = try authority.issueDevice(named: "B")
        try MainActor.assumeIsolated {
            launchAsProbeApp(ContinuedActivityRecorder())
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            // The probe's activity shown here: the link is up and carried calls both ways.
            XCTAssertTrue(MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(15)))
            let threads = Self.threadNames(of: probe.processIdentifier)
            XCTAssertFalse(threads.isEmpty, "the probe's threads cannot be read")
            XCTAssertFalse(threads.contains("gdbus"), "threads: \(threads)")
            // And the link works after the look: a call over it is answered.
            let answered = Outcome { try await node.callDevice("A") { bus in try await bus.call(.getCurrent) } }
            XCTAssertTrue(MainLoop.run(until: { answered.done }, timeout: .seconds(15)))
            XCTAssertNoThrow(try answered.get())
        }
    }

    /// A device of the group that goes away while the device it linked with is still asking its
    /// first question (the peer's revocation list) closed the link: the unlink says `.closed`,
    /// not that the peer broke the protocol.
    func testALinkThatClosesWhileAskedIsUnlinkedAsClosed() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (probe, address) = try startProbe(authority, "A")
        let c = try authority.issueDevice(named: "C")
        try MainActor.assumeIsolated {
            let credential = try TLSCredential(identity: c)
            let left = Outcome { () async throws -> Void in
                let channel = try await SecureChannel.connect(host: address.host, port: address.port, identity: c, credential: credential)
                try await channel.authenticateAnonymouslyByHand()
                try await channel.send(Data("BEGIN\r\n".utf8))
                // The device's first call arrives; C leaves without answering it.
                _ = try await channel.receive(maxLength: 64 * 1024)
                channel.close()
            }
            XCTAssertTrue(MainLoop.run(until: { left.done }, timeout: .seconds(30)))
            try left.get()
        }
        let unlinked = probe.waitForEvent(timeout: 30) { if case .unlinked = $0 { true } else { false } }
        guard case .unlinked(_, let reason)? = unlinked else { return XCTFail("no unlink: \(probe.output)") }
        XCTAssertEqual(reason, .closed, probe.output)
    }

    /// A device of the group sends a 250 KB message (under the size cap) that does not decode:
    /// its string argument is not UTF-8 after 250,000 valid bytes, which GLib's error would
    /// quote whole. The receiving device closes the link, says so in one short line (its log
    /// grows by less than 4 KiB), and goes on serving.
    func testAMalformedMessageClosesTheLinkWithOneShortLine() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (probe, address) = try startProbe(authority, "A")
        let c = try authority.issueDevice(named: "C")
        let blob = Self.malformedSignal(stringBytes: 250_000)
        XCTAssertLessThan(blob.count, PeerBus.maximumMessageBody, "within the size cap: only decoding refuses it")
        let logBefore = probe.output.utf8.count
        let closed = try MainActor.assumeIsolated { () throws -> Bool in
            let credential = try TLSCredential(identity: c)
            let attack = Outcome { () async throws -> Bool in
                let channel = try await SecureChannel.connect(host: address.host, port: address.port, identity: c, credential: credential)
                try await channel.authenticateAnonymouslyByHand()
                try await channel.send(Data("BEGIN\r\n".utf8) + blob)
                // What the device sent on the new link first (its own calls) is read; then the link must end.
                var drained = 0
                while drained < 1 << 20 {
                    do {
                        let chunk = try await channel.receive(maxLength: 64 * 1024)
                        if chunk.isEmpty { return true }
                        drained += chunk.count
                    } catch {
                        return true
                    }
                }
                return false
            }
            XCTAssertTrue(MainLoop.run(until: { attack.done }, timeout: .seconds(30)))
            return try attack.get()
        }
        XCTAssertTrue(closed, "the receiving device closed the link")
        XCTAssertTrue(probe.waitForRefusal(.malformedMessage), probe.output)
        probe.send("ping")
        XCTAssertNotNil(probe.waitForLine(containing: "pong"), probe.output)
        let grown = probe.output.utf8.count - logBefore
        XCTAssertLessThan(grown, 4096, "the log grew by \(grown) bytes:\n\(probe.output.suffix(2000))")
    }

    /// A device of an earlier version (GDBus on the TLS stream) and one on the engine link, in
    /// either role: each authenticates the other (ANONYMOUS) and answers the other's ping.
    func testALinkInteroperatesWithGDBusOnTheOtherSide() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        try MainActor.assumeIsolated {
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            let phoneCredential = try TLSCredential(identity: phone)
            for engineServes in [true, false] {
                let server = Outcome { try await listener.accept() }
                let client = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port,
                                                                       identity: phone, credential: phoneCredential) }
                XCTAssertTrue(MainLoop.run(until: { server.done && client.done }, timeout: .seconds(15)))
                let (engineChannel, gdbusChannel) = engineServes ? (try server.get(), try client.get()) : (try client.get(), try server.get())
                gdbusChannel.handToBus()
                let stream = SendableOpaque(OpaquePointer(gdbusChannel.stream))
                let gdbus = Outcome { () async throws -> SendableOpaque in
                    try await GIOAsync.call { cancellable, callback, userData in
                        let base = UnsafeMutablePointer<GIOStream>(stream.pointer)
                        if engineServes {
                            g_dbus_connection_new(base, nil, G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, nil, cancellable, callback, userData)
                        } else {
                            let guid = g_dbus_generate_guid()
                            defer { g_free(guid) }
                            let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER.rawValue
                                | G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS.rawValue)
                            g_dbus_connection_new(base, guid, flags, nil, cancellable, callback, userData)
                        }
                    } finish: { result, error in
                        g_dbus_connection_new_finish(result, error).map(SendableOpaque.init)
                    }
                }
                let engine = Outcome { try await PeerBus.open(over: engineChannel) }
                XCTAssertTrue(MainLoop.run(until: { gdbus.done && engine.done }, timeout: .seconds(15)))
                if !engineServes { gdbusChannel.authenticated() }
                let connection = try gdbus.get().pointer
                defer {
                    g_dbus_connection_close_sync(connection, nil, nil)
                    g_object_unref(UnsafeMutableRawPointer(connection))
                }
                let bus = try engine.get()
                defer { bus.close() }
                bus.startMessageProcessing()
                let fromEngine = Outcome { try await bus.ping() }
                let handle = SendableOpaque(connection)
                let fromGDBus = Outcome { () async throws -> Bool in
                    try await GIOAsync.call { cancellable, callback, userData in
                        g_dbus_connection_call(handle.pointer, nil, "/", "org.freedesktop.DBus.Peer", "Ping", nil, nil,
                                               G_DBUS_CALL_FLAGS_NONE, 10_000, cancellable, callback, userData)
                    } finish: { result, error in
                        g_dbus_connection_call_finish(handle.pointer, result, error).map { reply in
                            g_variant_unref(reply)
                            return true
                        }
                    }
                }
                XCTAssertTrue(MainLoop.run(until: { fromEngine.done && fromGDBus.done }, timeout: .seconds(15)))
                XCTAssertNoThrow(try fromEngine.get(), "engine \(engineServes ? "serving" : "dialing")")
                XCTAssertEqual(try fromGDBus.get(), true, "engine \(engineServes ? "serving" : "dialing")")
            }
        }
    }

    /// The bytes of a `CurrentChanged` signal whose one string argument is `stringBytes` of
    /// "x" and then a byte that is not UTF-8: framed correctly, refused by the decoder.
    static func malformedSignal(stringBytes: Int) -> Data {
        let message = g_dbus_message_new_signal(DeviceInterface.path, DeviceInterface.name, "CurrentChanged")!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try? Variant.tuple([.string(String(repeating: "x", count: stringBytes))]).makeGVariant())
        g_dbus_message_set_serial(message, 1)
        var size: gsize = 0
        let blob = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil)!
        defer { g_free(blob) }
        var bytes = Data(bytes: blob, count: Int(size))
        bytes[bytes.count - 2] = 0xFF  // the string's last byte, before its NUL
        return bytes
    }

    /// The names of process `pid`'s threads (`/proc/PID/task/*/comm`).
    static func threadNames(of pid: Int32) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
