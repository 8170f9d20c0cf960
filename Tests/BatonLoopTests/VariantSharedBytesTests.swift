import BatonLoop
import CGLib
import Foundation
import XCTest

/// Large `ay` values read from a GVariant share its memory instead of copying it (continuation
/// stream data arrives this way); the bytes must stay valid after the GVariant is released by
/// its other holders, and small ones are copied as before.
final class VariantSharedBytesTests: XCTestCase {
    func testLargeBytesReadFromAGVariantOutliveItsOtherReferences() throws {
        for size in [0, 100, 4095, 4096, 64 * 1024 + 3] {
            let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let value = g_variant_ref_sink(try Variant.tuple([.uint32(1), .bytes(bytes)]).makeGVariant())!
            let read = try Variant(reading: value)
            g_variant_unref(value)  // only the Data holds it now, if it shares it
            guard case .tuple(let items) = read, items.count == 2, case .bytes(let data) = items[1] else {
                return XCTFail("read back as \(read)")
            }
            XCTAssertEqual(data, bytes, "\(size) bytes")
        }
    }
}
