@testable import BatonContinuity
import Foundation
import XCTest

/// Where linked devices were last reached (`RememberedAddresses`): bounded, aged, and replaced
/// by a newer record for the same host. (Between real hosts: `RedialAfterAddressChangeTests`.)
final class RememberedAddressesTests: XCTestCase {
    private let start = ContinuousClock.now

    private func address(_ n: Int, port: UInt16 = 7355) -> PeerAddress {
        PeerAddress(host: "10.0.0.\(n)", port: port)
    }

    func testTheMostRecentlyReachedComeFirst() {
        var remembered = RememberedAddresses()
        remembered.remember(address(1), now: start)
        remembered.remember(address(2), now: start + .seconds(1))
        remembered.remember(address(1), now: start + .seconds(2))
        XCTAssertEqual(remembered.addresses(now: start + .seconds(3)), [address(1), address(2)])
    }

    func testPastTheCapacityTheAddressReachedLongestAgoGoes() {
        var remembered = RememberedAddresses()
        for n in 0...RememberedAddresses.capacity {
            remembered.remember(address(n), now: start + .seconds(n))
        }
        let now = start + .seconds(RememberedAddresses.capacity + 1)
        XCTAssertEqual(remembered.addresses(now: now).count, RememberedAddresses.capacity)
        XCTAssertFalse(remembered.contains(address(0), now: now))
        XCTAssertTrue(remembered.contains(address(1), now: now))
        XCTAssertTrue(remembered.contains(address(RememberedAddresses.capacity), now: now))
    }

    func testAnAddressIsForgottenOnceItsLifetimeHasPassed() {
        var remembered = RememberedAddresses()
        remembered.remember(address(1), now: start)
        remembered.remember(address(2), now: start + .seconds(600))
        let later = start + RememberedAddresses.lifetime
        XCTAssertFalse(remembered.contains(address(1), now: later))
        XCTAssertTrue(remembered.contains(address(2), now: later))
        XCTAssertEqual(remembered.addresses(now: later), [address(2)])
        XCTAssertTrue(remembered.contains(address(1), now: later - .seconds(1)), "still kept just before")
    }

    func testANewRecordForTheHostReplacesWhatIsRememberedThere() {
        var remembered = RememberedAddresses()
        remembered.remember(address(1, port: 7355), now: start)
        remembered.remember(address(1, port: 7356), now: start)
        remembered.remember(address(2), now: start)
        remembered.forget(host: "10.0.0.1")
        XCTAssertEqual(remembered.addresses(now: start), [address(2)])
    }
}
