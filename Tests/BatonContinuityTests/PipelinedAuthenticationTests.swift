@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// The dialing side of a link pipelines its D-Bus authentication (D-Bus specification,
/// "Authentication Protocol"): `AUTH ANONYMOUS`, `BEGIN` and its first call go out in one
/// flight. The accepting side's answer is still checked: anything but `OK` closes the link
/// before a byte of the server is read as a message. The accepting side still refuses a bad
/// authentication line, whatever follows it in the same flight.
final class PipelinedAuthenticationTests: TrustTestCase {
    /// A linked pair of channels: the accepted one (`server`, authenticated by hand in these
    /// tests) and the dialed one (`client`).
    @MainActor
    private static func channels(_ laptop: DeviceIdentity, _ phone: DeviceIdentity) throws
        -> (listener: SecureListener, server: SecureChannel, client: SecureChannel) {
        let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
        let server = Outcome { try await listener.accept() }
        let phoneCredential = try TLSCredential(identity: phone)
        let client = Outcome { try await SecureChannel.connect(host: "127.0.0.1", port: listener.port, identity: phone, credential: phoneCredential) }
        XCTAssertTrue(MainLoop.run(until: { server.done && client.done }, timeout: .seconds(30)))
        return (listener, try server.get(), try client.get())
    }

    /// Reads from `channel` until `enough` says the bytes read so far suffice (or it ends).
    @MainActor
    private static func read(_ channel: SecureChannel, until enough: @escaping (Data) -> Bool) -> Outcome<Data> {
        Outcome { () async throws -> Data in
            var bytes = Data()
            while !enough(bytes) {
                let chunk = try await channel.receive(maxLength: 4096)
                if chunk.isEmpty { break }
                bytes += chunk
            }
            return bytes
        }
    }

    /// The bytes after the end of the first `BEGIN\r\n` line in `bytes`, or nil before it.
    private static func afterBegin(_ bytes: Data) -> Data? {
        bytes.range(of: Data("BEGIN\r\n".utf8)).map { bytes[$0.upperBound...] }
    }

    /// The dialing side's first call reaches the accepting side before the accepting side has
    /// said `OK`: authentication costs no round trip of its own. (Waiting for `OK` before
    /// `BEGIN`, as before, the server here would never see `BEGIN`.)
    func testTheDialingSideSendsItsFirstCallBeforeTheServerAnswers() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        try MainActor.assumeIsolated {
            let (listener, server, client) = try Self.channels(laptop, phone)
            withExtendedLifetime(listener) {}
            let bus = Outcome { try await PeerBus.open(over: client) }
            XCTAssertTrue(MainLoop.run(until: { bus.done }, timeout: .seconds(30)))
            let clientBus = try bus.get()
            defer { clientBus.close() }
            clientBus.startMessageProcessing()
            let ping = Outcome { try await clientBus.ping(timeout: .seconds(30)) }
            // A whole fixed header (16 bytes) of the ping after BEGIN, with nothing answered yet.
            let flight = Self.read(server) { (Self.afterBegin($0)?.count ?? 0) >= 16 }
            XCTAssertTrue(MainLoop.run(until: { flight.done }, timeout: .seconds(30)))
            let bytes = try flight.get()
            XCTAssertEqual(bytes.first, 0, "the credentials byte first")
            XCTAssertTrue(bytes.dropFirst().starts(with: Data("AUTH ANONYMOUS ".utf8)))
            let message = try XCTUnwrap(Self.afterBegin(bytes), "BEGIN came before any answer")
            XCTAssertGreaterThanOrEqual(message.count, 16, "the call came in the same flight")
            XCTAssertTrue(message.first == UInt8(ascii: "l") || message.first == UInt8(ascii: "B"), "a D-Bus message follows BEGIN")
            XCTAssertFalse(ping.done, "the call waits for its answer")
            server.close()
            XCTAssertTrue(MainLoop.run(until: { ping.done }, timeout: .seconds(30)))
        }
    }

    /// An answer other than `OK` to a pipelined authentication closes the link: the call sent
    /// in the same flight fails as on a closed link, and what the server sends after its
    /// answer (here a well-formed D-Bus error reply to that call) is never read as a message.
    func testAnAnswerOtherThanOKClosesTheLinkAndNothingAfterItIsRead() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        for answer in ["REJECTED EXTERNAL", "ERROR", "DATA 6f6b", "OK"] {
            try MainActor.assumeIsolated {
                let (listener, server, client) = try Self.channels(laptop, phone)
                withExtendedLifetime(listener) {}
                let bus = Outcome { try await PeerBus.open(over: client) }
                XCTAssertTrue(MainLoop.run(until: { bus.done }, timeout: .seconds(30)))
                let clientBus = try bus.get()
                defer { clientBus.close() }
                clientBus.startMessageProcessing()
                let ping = Outcome { try await clientBus.ping(timeout: .seconds(30)) }
                let flight = Self.read(server) { (Self.afterBegin($0)?.count ?? 0) >= 16 }
                XCTAssertTrue(MainLoop.run(until: { flight.done }, timeout: .seconds(30)))
                let sent = Outcome { try await server.send(Data((answer + "\r\n").utf8) + Self.errorReply(toSerial: 1)) }
                XCTAssertTrue(MainLoop.run(until: { sent.done && ping.done }, timeout: .seconds(30)), answer)
                guard let error = ping.error as? TransportError, case .connectionFailed(let cause) = error else {
                    return XCTFail("\(answer): the call ended with \(String(describing: ping.value)), not a closed link")
                }
                XCTAssertEqual(cause.code, gint(G_IO_ERROR_CLOSED.rawValue), "\(answer): \(cause)")
                XCTAssertNil(cause.remoteDBusErrorName, "\(answer): the server's reply was read as a message")
                XCTAssertTrue(clientBus.isClosed, answer)
                server.close()
            }
        }
    }

    /// The accepting side refuses a bad authentication line even when `BEGIN` and a message
    /// come with it in one flight: the message is never taken as one.
    func testTheAcceptingSideRefusesABadAuthenticationLinePipelinedWithAMessage() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        try MainActor.assumeIsolated {
            let (listener, server, client) = try Self.channels(laptop, phone)
            withExtendedLifetime(listener) {}
            let bus = Outcome { try await PeerBus.open(over: server) }
            let flight = Data([0]) + Data("AUTH EXTERNAL 30\r\nBEGIN\r\n".utf8) + Self.errorReply(toSerial: 1) + Data(repeating: 0x41, count: 1024)
            let sent = Outcome { try await client.send(flight) }
            XCTAssertTrue(MainLoop.run(until: { bus.done && sent.done }, timeout: .seconds(30)))
            XCTAssertNotNil(bus.error, "the accepting side took a link whose authentication it had rejected")
            client.close()
        }
    }

    /// A D-Bus error reply (little-endian) to `serial`, as GLib encodes one.
    private static func errorReply(toSerial serial: UInt32) -> Data {
        let message = g_dbus_message_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_message_type(message, G_DBUS_MESSAGE_TYPE_ERROR)
        g_dbus_message_set_error_name(message, "org.example.Error.Injected")
        g_dbus_message_set_reply_serial(message, serial)
        g_dbus_message_set_serial(message, 7)
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        var size: gsize = 0
        let blob = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil)!
        defer { g_free(blob) }
        return Data(bytes: blob, count: Int(size))
    }
}
