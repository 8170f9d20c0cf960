@testable import BatonContinuity
import BatonLoop
import Foundation
import XCTest

/// A roster read from disk is written back without trapping, whatever issue times it holds
/// (found while fuzzing `Roster(data:)`, Fuzz/Roster).
final class RosterCodingTests: XCTestCase {
    private func roster(issued: Int64) throws -> Data {
        try Variant.array(elementType: "(ssxb)", [.tuple([.string("laptop"), .string("0a"), .int64(issued), .bool(true)])]).serialized()
    }

    /// `Int64.max` seconds becomes a Double that rounds past `Int64.max`; writing it back used
    /// to trap converting it to `Int64` (so `baton device add` crashed on such a roster).
    func testExtremeIssueTimesAreWrittenBack() throws {
        for issued in [Int64.max, Int64.max - 100, Int64.min, 0, -1, 1_780_000_000] {
            let read = try Roster(data: try roster(issued: issued), path: "roster")
            let again = try Roster(data: try read.data(), path: "roster")
            XCTAssertEqual(again.devices.map(\.name), ["laptop"])
            XCTAssertEqual(again.devices.map(\.revoked), [true])
            if issued == Int64.max { XCTAssertEqual(Roster.seconds(again.devices[0].issued), .max) }
            if issued.magnitude < 1 << 52 { XCTAssertEqual(again, read) }
        }
    }

    func testSecondsAreClampedAndTruncated() {
        XCTAssertEqual(Roster.seconds(Date(timeIntervalSince1970: 1e300)), .max)
        XCTAssertEqual(Roster.seconds(Date(timeIntervalSince1970: -1e300)), .min)
        XCTAssertEqual(Roster.seconds(Date(timeIntervalSince1970: .nan)), 0)
        XCTAssertEqual(Roster.seconds(Date(timeIntervalSince1970: 12.9)), 12)
        XCTAssertEqual(Roster.seconds(Date(timeIntervalSince1970: -12.9)), -12)
    }
}
