@testable import BatonContinuity
import XCTest

/// Listening on every interface takes IPv6 too, where one host can use any address of its /64:
/// the per-address cap on unauthenticated connections counts a /64 as one address.
final class AddressGroupTests: XCTestCase {
    func testIPv6AddressesOfOneSlash64AreOneAddressAndIPv4StaysAsItIs() {
        let one = PendingConnection.addressGroup(of: "2001:db8:1:2::10")
        XCTAssertEqual(one, "2001:0db8:0001:0002::/64")
        XCTAssertEqual(PendingConnection.addressGroup(of: "2001:db8:1:2:aaaa:bbbb:cccc:dddd"), one)
        XCTAssertEqual(PendingConnection.addressGroup(of: "2001:0db8:0001:0002:0:0:0:1"), one)
        XCTAssertNotEqual(PendingConnection.addressGroup(of: "2001:db8:1:3::10"), one)
        XCTAssertEqual(PendingConnection.addressGroup(of: "192.0.2.7"), "192.0.2.7")
        XCTAssertNotEqual(PendingConnection.addressGroup(of: "192.0.2.8"), PendingConnection.addressGroup(of: "192.0.2.7"))
        XCTAssertEqual(PendingConnection.addressGroup(of: "?"), "?")
    }
}
