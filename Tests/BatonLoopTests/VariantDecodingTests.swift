import BatonLoop
import Foundation
import XCTest

/// `Variant(serialized:type:)` refuses what it cannot decode with a typed error, never a trap
/// (inputs found while fuzzing it, Fuzz/Variant).
final class VariantDecodingTests: XCTestCase {
    /// GLib's `g_variant_new_from_bytes` takes definite types only; an indefinite but valid
    /// type string used to reach it, and GLib aborted the process
    /// (`g_variant_type_info_get: assertion failed (0 <= index)`).
    func testIndefiniteTypeStringsAreRefused() {
        for type in ["*", "?", "r", "a*", "(s*)", "a{?*}", "m*", "(sr)"] {
            XCTAssertThrowsError(try Variant(serialized: Data([0, 0, 0, 0]), type: type), type) { error in
                XCTAssertEqual(error as? VariantError, .invalidTypeString(type))
            }
        }
    }

    /// The C string GLib sees would stop at the NUL, so "s\0x" would be read as "s".
    func testTypeStringWithNULIsRefused() {
        XCTAssertThrowsError(try Variant(serialized: Data("a\0".utf8), type: "s\0x")) { error in
            XCTAssertEqual(error as? VariantError, .invalidTypeString("s\0x"))
        }
    }

    func testDefiniteTypesStillDecode() throws {
        let value = Variant.tuple([.string("a"), .array(elementType: "v", [.boxed(.uint64(7))])])
        XCTAssertEqual(try Variant(serialized: try value.serialized(), type: "(sav)"), value)
    }
}
