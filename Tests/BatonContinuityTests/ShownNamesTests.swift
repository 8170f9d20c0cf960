@testable import BatonContinuity
import Foundation
import XCTest

/// `ShownNames`, the index `LinkTable.link(shownAs:)` finds a link by: a device is found by its
/// name in the group's list and by the short form of its identifier, the lower identifier
/// where two are shown alike, and a name nobody has finds nothing.
final class ShownNamesTests: XCTestCase {
    func testADeviceIsFoundByItsNameAndItsShortFormAndTheLowerIdentifierWins() {
        let ada = String(repeating: "a1", count: 16), bob = String(repeating: "b2", count: 16), cy = String(repeating: "c3", count: 16)
        let names = [ada: "laptop", bob: "laptop", cy: "phone"]
        let shown = ShownNames(identifiers: [cy, bob, ada], names: names)
        XCTAssertEqual(shown.identifier(shownAs: "laptop"), ada, "two named alike: the lower identifier, as the scan in order found")
        XCTAssertEqual(shown.identifier(shownAs: "phone"), cy)
        XCTAssertEqual(shown.identifier(shownAs: OpaqueIdentifier.shortForm(bob)), bob)
        XCTAssertNil(shown.identifier(shownAs: "tablet"))

        let unnamed = ShownNames(identifiers: [cy], names: [:])
        XCTAssertEqual(unnamed.identifier(shownAs: OpaqueIdentifier.shortForm(cy)), cy, "a device the list does not name")
        XCTAssertNil(unnamed.identifier(shownAs: "phone"))
        XCTAssertEqual(shown.names, names)
    }
}
