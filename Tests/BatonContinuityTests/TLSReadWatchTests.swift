@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CBatonStreams
import CGLib
import Foundation
import Logging
import XCTest

/// How a `DBusConnection` over TLS on a TCP socket (a link) watches it: through an `FDWatch` on
/// the socket's descriptor, so a message costs the loop one ready fd and no wake-up of its own
/// (GIO's pollable TLS source is taken out of the poll set around each dispatch, writing the
/// context's wake-up eventfd, and made the eventfd ready too). GnuTLS may hold decrypted
/// bytes the socket no longer shows: each time the watch starts (after authentication, after a
/// pause) the connection reads once without waiting for the socket, so those are still taken.
final class TLSReadWatchTests: TrustTestCase {
    func testAMessageOverTLSMakesOneFDReady() throws {
        try withTLSPair { bus, sender in
            let signals = 200
            XCTAssertNotNil(bus.socketDescriptor, "a TLS stream on a socket watches the socket's descriptor")
            var received = 0
            let handled = DispatchSemaphore(value: 0)
            // The next signal is sent once the read watch's dispatch is over (from an idle of the
            // loop), so the watch does not find it with the read it goes on with.
            _ = bus.subscribe("/org/baton/Test", "org.baton.Test", "Tick") { _ in
                received += 1
                MainLoop.idle(priority: .default) { handled.signal() }
            }
            bus.startMessageProcessing()
            let signal = try Self.tick()
            // The start's one read without the socket (which finds nothing) is over before counting.
            XCTAssertTrue(MainLoop.run(until: { bus.readAgain == nil }, timeout: .seconds(60)))
            let polls = ReadyFDCounter(on: MainLoop.context)
            defer { polls.remove() }
            // One signal at a time, each after the last was handled: each finds the loop waiting.
            Thread {
                for _ in 0..<signals {
                    sender.write(signal)
                    handled.wait()
                }
            }.start()
            XCTAssertTrue(MainLoop.run(until: { received == signals }, timeout: .seconds(60)))
            let ready = polls.ready
            XCTAssertLessThan(Double(ready), 1.5 * Double(signals), "\(ready) fds ready in polls for \(signals) messages")
        }
    }

    /// Two messages in one TLS record, of which 16 bytes were read before the watch started:
    /// GnuTLS holds the rest decrypted and the socket shows nothing more, yet both are taken.
    func testMessagesGnuTLSAlreadyDecryptedAreTakenWithNoNewBytesOnTheSocket() throws {
        try assertBothMessagesOfOneRecordTaken(pausedFirst: false)
    }

    /// The same after a pause: what GnuTLS holds when reading resumes is taken.
    func testMessagesGnuTLSAlreadyDecryptedAreTakenWhenReadingResumes() throws {
        try assertBothMessagesOfOneRecordTaken(pausedFirst: true)
    }

    /// Sends two messages in one record, reads the first one's fixed header alone, then starts
    /// the watch (`pausedFirst`: resumes reading after a pause); both messages must be taken.
    private func assertBothMessagesOfOneRecordTaken(pausedFirst: Bool) throws {
        try withTLSPair { bus, sender in
            var received = 0
            _ = bus.subscribe("/org/baton/Test", "org.baton.Test", "Tick") { _ in received += 1 }
            if pausedFirst {
                bus.pauseReading()
                bus.startMessageProcessing()
            }
            let signal = try Self.tick()
            sender.write(signal + signal)
            XCTAssertTrue(try Self.readHeader(of: bus))
            if pausedFirst { bus.resumeReading() } else { bus.startMessageProcessing() }
            XCTAssertTrue(MainLoop.run(until: { received == 2 }, timeout: .seconds(30)), "\(received) of 2 messages taken")
            XCTAssertFalse(bus.isClosed)
        }
    }

    // MARK: Helpers

    /// A `Tick` signal's bytes.
    private static func tick() throws -> [UInt8] {
        try GLibMessageBlob.bytes(of: g_dbus_message_new_signal("/org/baton/Test", "org.baton.Test", "Tick")!, arguments: [.uint32(1)])
    }

    /// Reads the first message's fixed header alone, once the socket shows bytes: GnuTLS
    /// decrypts their whole record and keeps the rest. False if nothing came.
    @MainActor
    private static func readHeader(of bus: DBusConnection) throws -> Bool {
        let fd = try XCTUnwrap(bus.socketDescriptor)
        var ready = false
        Task { @MainActor in
            await Readiness.readable(fd)
            ready = true
        }
        guard MainLoop.run(until: { ready }, timeout: .seconds(30)) else { return false }
        guard case .moved(let n) = bus.readSome(upTo: DBusFraming.fixedHeaderSize) else { return false }
        XCTAssertEqual(n, DBusFraming.fixedHeaderSize)
        var pending: Int32 = 0
        XCTAssertEqual(ioctl(fd, UInt(FIONREAD), &pending), 0)
        XCTAssertEqual(pending, 0, "the record is all out of the socket")
        return true
    }

    /// A mutual-TLS channel pair on loopback: `body` gets a `DBusConnection` (not yet
    /// authenticated, so nothing is exchanged before the test's own bytes) on the accepting
    /// side and a blocking writer of the dialing side's TLS stream.
    private func withTLSPair(_ body: @MainActor (DBusConnection, TLSWriter) throws -> Void) throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        try MainActor.assumeIsolated {
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            defer { listener.close() }
            let server = Outcome { try await listener.accept() }
            let credential = try TLSCredential(identity: phone)
            let client = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port, identity: phone,
                                                                   credential: credential) }
            XCTAssertTrue(MainLoop.run(until: { server.done && client.done }, timeout: .seconds(60)))
            let serverChannel = try server.get(), clientChannel = try client.get()
            defer {
                serverChannel.close()
                clientChannel.close()
            }
            // Past the listener's deadline for authentication, which would shut the socket down.
            serverChannel.authenticated()
            let socket = try XCTUnwrap(baton_tls_base_socket(serverChannel.stream)).assumingMemoryBound(to: GSocket.self)
            let bus = DBusConnection(stream: serverChannel.stream, base: .socket(socket), log: Logger(label: "watch"), kind: "link",
                                     fallbackErrorName: DeviceInterface.ErrorName.failed)
            defer { bus.close() }
            try body(bus, TLSWriter(clientChannel.stream))
        }
    }
}

/// Writes whole buffers to a TLS stream, blocking, from any thread (the loop does not watch
/// that stream).
private struct TLSWriter: @unchecked Sendable {
    let stream: UnsafeMutablePointer<GIOStream>
    init(_ stream: UnsafeMutablePointer<GIOStream>) { self.stream = stream }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var written: gsize = 0
            _ = g_output_stream_write_all(g_io_stream_get_output_stream(stream), buffer.baseAddress, gsize(buffer.count), &written, nil, nil)
        }
    }
}
