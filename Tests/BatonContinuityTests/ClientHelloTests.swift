@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// The ClientHello reader the listeners use to refuse clients without TLS 1.3 before their
/// handshake: a real device's hello offers TLS 1.3; a hello offering only TLS 1.2, or none
/// of the extension, does not; and no truncated or lying length reads out of bounds.
final class ClientHelloTests: TrustTestCase {
    /// A minimal ClientHello record with `extensions` (type, body) after the fixed fields.
    private func record(extensions: [(UInt16, [UInt8])], sessionID: Int = 32) -> [UInt8] {
        var ext: [UInt8] = []
        for (type, body) in extensions { ext += [UInt8(type >> 8), UInt8(type & 0xff), UInt8(body.count >> 8), UInt8(body.count & 0xff)] + body }
        var hello: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 7, count: 32) + [UInt8(sessionID)] + [UInt8](repeating: 1, count: sessionID)
        hello += [0x00, 0x02, 0x13, 0x01, 0x01, 0x00]  // one cipher suite, the null compression method
        hello += [UInt8(ext.count >> 8), UInt8(ext.count & 0xff)] + ext
        let handshake: [UInt8] = [0x01, 0x00, UInt8(hello.count >> 8), UInt8(hello.count & 0xff)] + hello
        return [0x16, 0x03, 0x01, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xff)] + handshake
    }

    func testADevicesRealClientHelloOffersTLS13() throws {
        let phone = try GroupAuthority.create(name: "Ada", in: config("admin")).issueDevice(named: "phone")
        let hello = try MainActor.assumeIsolated { try capturedClientHello(from: phone) }
        XCTAssertTrue(ClientHello.offersTLS13(hello))
        // No prefix of it is a whole hello: each is refused, none read past its end.
        for length in 0..<hello.count { XCTAssertFalse(ClientHello.offersTLS13(Array(hello.prefix(length))), "\(length)") }
        // A record length that does not match what follows is refused.
        var lying = hello
        lying[4] &+= 1
        XCTAssertFalse(ClientHello.offersTLS13(lying))
    }

    func testOnlyAHelloListingTLS13InSupportedVersionsPasses() {
        XCTAssertTrue(ClientHello.offersTLS13(record(extensions: [(43, [4, 0x03, 0x04, 0x03, 0x03])])))
        XCTAssertTrue(ClientHello.offersTLS13(record(extensions: [(0, [0, 0]), (43, [2, 0x03, 0x04])], sessionID: 0)))
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [(43, [2, 0x03, 0x03])])), "TLS 1.2 only")
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [(10, [0, 2, 0, 23])])), "no supported_versions: TLS 1.2 or lower")
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [])))
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [(43, [2, 0x03, 0x04]), (43, [2, 0x03, 0x04])])), "twice")
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [(43, [3, 0x03, 0x04, 0x03])])), "an odd list")
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [(43, [6, 0x03, 0x04])])), "a list longer than its extension")
        XCTAssertFalse(ClientHello.offersTLS13(record(extensions: [(43, [2, 0x03, 0x04])], sessionID: 33)), "a session id over 32")
        // An extension whose length runs past the hello.
        var overlong = record(extensions: [(43, [2, 0x03, 0x04])])
        overlong[overlong.count - 4] = 0x40
        XCTAssertFalse(ClientHello.offersTLS13(overlong))
        // Not a handshake record, or not a ClientHello.
        var other = record(extensions: [(43, [2, 0x03, 0x04])])
        other[0] = 0x17
        XCTAssertFalse(ClientHello.offersTLS13(other))
        other[0] = 0x16
        other[5] = 0x02
        XCTAssertFalse(ClientHello.offersTLS13(other))
    }
}
