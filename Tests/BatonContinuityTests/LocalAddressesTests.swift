@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// `LocalAddresses`: what the dialer looks at after a network change to drop at once a link
/// whose local address the machine no longer holds. A real TLS link to a device process
/// (`DeviceProbe`) on loopback.
final class LocalAddressesTests: TrustTestCase {
    nonisolated(unsafe) private var probes: [RunningProcess] = []

    override func tearDownWithError() throws {
        for probe in probes { probe.terminate() }
        probes = []
        try super.tearDownWithError()
    }

    /// A link's local address is the one its socket was bound to, and the machine holds it;
    /// an address no interface has (TEST-NET-1) is not held.
    func testALinksLocalAddressIsHeldAndAnUnassignedOneIsNot() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let folder = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: folder)
        let probe = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"])
        probes.append(probe)
        let address = try XCTUnwrap(probe.listeningAddress(), probe.output)
        let c = try authority.issueDevice(named: "C")
        try MainActor.assumeIsolated {
            let credential = try TLSCredential(identity: c)
            let local = Outcome { () async throws -> [UInt8]? in
                let channel = try await SecureChannel.connect(host: address.host, port: address.port, identity: c, credential: credential)
                defer { channel.close() }
                return LocalAddresses.local(of: channel)
            }
            XCTAssertTrue(MainLoop.run(until: { local.done }, timeout: .seconds(30)))
            let bytes = try XCTUnwrap(try local.get())
            XCTAssertEqual(bytes, [127, 0, 0, 1])
            let held = try XCTUnwrap(LocalAddresses.current(), "getifaddrs")
            XCTAssertTrue(held.holds(bytes))
            XCTAssertFalse(held.holds([192, 0, 2, 1]))
        }
    }

    /// An IPv4 address mapped into IPv6 (a dual-stack socket's) is its IPv4 address; a plain
    /// IPv6 address keeps its 16 bytes.
    func testAnIPv4MappedAddressIsTakenAsItsIPv4Address() {
        func bytes(of text: String) -> [UInt8]? {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            XCTAssertEqual(inet_pton(AF_INET6, text, &address.sin6_addr), 1)
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { LocalAddresses.bytes(of: $0) }
            }
        }
        XCTAssertEqual(bytes(of: "::ffff:10.77.0.2"), [10, 77, 0, 2])
        XCTAssertEqual(bytes(of: "::1"), [UInt8](repeating: 0, count: 15) + [1])
    }
}
