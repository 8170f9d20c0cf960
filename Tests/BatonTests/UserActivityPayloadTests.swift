@testable import Baton
import XCTest

struct NotAPropertyListValue {}

/// userInfo values (implementing-handoff-in-your-app, "Update Activities While the User is
/// Active"; handoff-programming-guide, "Populating the Activity Object's User Info
/// Dictionary") and their serialisation (docs/PROTOCOL.md).
final class UserActivityPayloadTests: BatonTestCase {
    func testEveryCarriedTypeSurvivesARoundTrip() throws {
        try MainActor.assumeIsolated {
            let date = Date(timeIntervalSince1970: 1_700_000_000.25)
            let uuid = UUID()
            let activity = UserActivity(activityType: "com.example.all")
            activity.userInfo = [
                "n": 42, "d": 2.5, "s": "text", "u": URL(string: "https://example.com/a?b=c")!, "date": date,
                "data": Data([0, 1, 2, 255]), "list": ["a", "b"], "set": Set(["x", "y"]),
                "dict": ["inner": 1, "deeper": ["k": "v"]] as [String: Any], "flag": true, "uuid": uuid,
                "null": NSNull(), "u8": UInt8(7), "i16": Int16(-3), "f": Float(0.5), "mixed": [1, "two", 3.0] as [Any],
            ]
            let info = try UserActivity(payload: try activity.encodedPayload()).userInfo
            XCTAssertEqual(info?["n"] as? Int, 42)
            XCTAssertEqual(info?["d"] as? Double, 2.5)
            XCTAssertEqual(info?["s"] as? String, "text")
            XCTAssertEqual(info?["u"] as? URL, URL(string: "https://example.com/a?b=c"))
            XCTAssertEqual(info?["date"] as? Date, date)
            XCTAssertEqual(info?["data"] as? Data, Data([0, 1, 2, 255]))
            XCTAssertEqual(info?["list"] as? [String], ["a", "b"])
            XCTAssertEqual(info?["set"] as? Set<String>, ["x", "y"])
            let dict = info?["dict"] as? [String: Any]
            XCTAssertEqual(dict?["inner"] as? Int, 1)
            XCTAssertEqual((dict?["deeper"] as? [String: Any])?["k"] as? String, "v")
            XCTAssertEqual(info?["flag"] as? Bool, true)
            XCTAssertEqual(info?["uuid"] as? UUID, uuid)
            XCTAssertTrue(info?["null"] is NSNull)
            XCTAssertEqual(info?["u8"] as? UInt8, 7)
            XCTAssertEqual(info?["i16"] as? Int, -3)
            XCTAssertEqual(info?["f"] as? Double, 0.5)
            let mixed = info?["mixed"] as? [Any]
            XCTAssertEqual(mixed?[1] as? String, "two")
            XCTAssertEqual(info?["d"] as? Int, nil, "2.5 is not an Int")
        }
    }

    func testPropertiesSurviveARoundTrip() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.props")
            activity.title = "Reading chapter 3"
            activity.webpageURL = URL(string: "https://example.com/book/3")
            activity.referrerURL = URL(string: "https://example.org/")
            activity.expirationDate = Date(timeIntervalSince1970: 1_900_000_000)
            activity.keywords = ["book", "chapter"]
            activity.isEligibleForHandoff = false
            activity.isEligibleForSearch = true
            activity.isEligibleForPublicIndexing = true
            activity.targetContentIdentifier = "chapter-3"
            activity.persistentIdentifier = "reading"
            activity.supportsContinuationStreams = true
            let copy = try UserActivity(payload: try activity.encodedPayload())
            XCTAssertEqual(copy.activityType, "com.example.props")
            XCTAssertEqual(copy.title, activity.title)
            XCTAssertEqual(copy.webpageURL, activity.webpageURL)
            XCTAssertEqual(copy.referrerURL, activity.referrerURL)
            XCTAssertEqual(copy.expirationDate, activity.expirationDate)
            XCTAssertEqual(copy.keywords, activity.keywords)
            XCTAssertFalse(copy.isEligibleForHandoff)
            XCTAssertTrue(copy.isEligibleForSearch && copy.isEligibleForPublicIndexing && copy.supportsContinuationStreams)
            XCTAssertEqual(copy.targetContentIdentifier, "chapter-3")
            XCTAssertEqual(copy.persistentIdentifier, "reading")
        }
    }

    /// implementing-handoff-in-your-app, "Create User Activity Objects" and "Continue the
    /// Activity in Your App": the listing sets requiredUserInfoKeys = ["shape-type"] and then
    /// restores from "activity-version" as well, so a handoff carries the whole userInfo.
    func testRequiredUserInfoKeysTravelWithTheWholeUserInfo() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.myapp.create-shape")
            activity.requiredUserInfoKeys = ["shape-type"]
            activity.userInfo = ["shape-type": "square", "activity-version": 1]
            let copy = try UserActivity(payload: try activity.encodedPayload())
            XCTAssertEqual(copy.userInfo?["shape-type"] as? String, "square")
            XCTAssertEqual(copy.userInfo?["activity-version"] as? Int, 1)
            XCTAssertEqual(copy.requiredUserInfoKeys, ["shape-type"])
        }
    }

    func testAddingAnUnsupportedValueLogsItNamingKeyAndTypeAndAppliesTheRest() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: unique("com.example.mixed"))
            activity.addUserInfoEntries(from: ["good": 1, "bad": NotAPropertyListValue()])
            XCTAssertEqual(activity.userInfo?["good"] as? Int, 1)
            XCTAssertNil(activity.userInfo?["bad"])
            let logged = CapturedLog.shared.errors(mentioning: "userInfo[bad]")
            XCTAssertEqual(logged.first as? UserActivityError,
                           .unsupportedUserInfoValue(key: "bad", type: "NotAPropertyListValue"))
        }
    }

    func testTheThrowingVariantsRefuseEverythingAndNameTheNestedKey() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.strict")
            activity.userInfo = ["before": 1]
            XCTAssertThrowsError(try activity.addUserInfoEntries(validating: ["ok": 2, "list": [1, NotAPropertyListValue()] as [Any]])) {
                XCTAssertEqual($0 as? UserActivityError, .unsupportedUserInfoValue(key: "list[1]", type: "NotAPropertyListValue"))
            }
            XCTAssertThrowsError(try activity.setUserInfo(["outer": ["inner": NotAPropertyListValue()] as [String: Any]])) {
                XCTAssertEqual($0 as? UserActivityError, .unsupportedUserInfoValue(key: "outer.inner", type: "NotAPropertyListValue"))
            }
            XCTAssertThrowsError(try activity.setUserInfo([7: "int key"])) {
                XCTAssertEqual($0 as? UserActivityError, .unsupportedUserInfoKey(key: "7", type: "Int"))
            }
            activity.userInfo = ["x": NotAPropertyListValue()]
            XCTAssertEqual(activity.userInfo?.count, 1)
            XCTAssertEqual(activity.userInfo?["before"] as? Int, 1, "a refused value leaves the previous state intact")
        }
    }

    /// handoff-programming-guide, "Web Browser-to-Native App Handoff": webpageURL must be http(s).
    func testANonHTTPWebpageURLIsRefusedAndTheOldValueKept() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.web")
            activity.webpageURL = URL(string: "https://example.com/")
            activity.webpageURL = URL(string: "ftp://example.com/file")
            XCTAssertEqual(activity.webpageURL, URL(string: "https://example.com/"))
            XCTAssertThrowsError(try activity.setWebpageURL(URL(string: "file:///etc/passwd"))) {
                XCTAssertEqual($0 as? UserActivityError, .webpageURLNotHTTP(url: "file:///etc/passwd"))
            }
            XCTAssertNoThrow(try activity.setWebpageURL(URL(string: "HTTP://example.com/upper")))
            XCTAssertNoThrow(try activity.setWebpageURL(nil))
        }
    }

    /// handoff-programming-guide, "Best Practices": 3 KB or less; over the hard limit the
    /// transfer fails with userActivityHandoffUserInfoTooLarge.
    func testOversizedPayloadsWarnThenFail() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: unique("com.example.big"))
            activity.userInfo = ["blob": Data(count: 4 * 1024)]
            XCTAssertNoThrow(try activity.encodedPayload())
            XCTAssertFalse(CapturedLog.shared.messages(mentioning: activity.activityType).filter { $0.contains("advises under") }.isEmpty)
            activity.userInfo = ["blob": Data(count: UserActivity.payloadLimit)]
            XCTAssertThrowsError(try activity.encodedPayload()) {
                XCTAssertEqual(($0 as? CocoaError)?.code, .userActivityHandoffUserInfoTooLarge)
            }
        }
    }

    func testBadPayloadsGetTypedErrorsNeverTraps() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.valid")
            activity.userInfo = ["k": "v"]
            let good = try activity.encodedPayload()
            @MainActor func reason(_ data: Data) -> UserActivityError? {
                do { _ = try UserActivity(payload: data); return nil } catch { return error }
            }
            XCTAssertNil(reason(good))
            guard case .malformedPayload? = reason(Data("garbage that is not a variant".utf8)) else { return XCTFail("garbage") }
            guard case .malformedPayload? = reason(good.prefix(good.count - 3)) else { return XCTFail("truncated") }
            guard case .malformedPayload? = reason(Data()) else { return XCTFail("empty") }
            XCTAssertEqual(reason(Data(count: UserActivity.payloadLimit + 1)),
                           .payloadTooLarge(size: UserActivity.payloadLimit + 1, limit: UserActivity.payloadLimit))
            XCTAssertEqual(reason(try payload(version: 2, .string("anything"))), .unsupportedPayloadVersion(2))
            XCTAssertEqual(reason(try payload(.string("t"))),
                           .malformedPayload(reason: "a version 1 body must be (sa{sv}a{sv}), not s"))
            XCTAssertEqual(reason(try body(["title": .int64(3)])), .malformedPayload(reason: "property title has type x, not s"))
            XCTAssertEqual(reason(try body(["webpageURL": .string("ftp://x/")])), .webpageURLNotHTTP(url: "ftp://x/"))
            XCTAssertEqual(reason(try body([:], info: ["id": .tuple([.bytes(Data([1]))])])),
                           .malformedPayload(reason: "userInfo[id]: a UUID needs 16 bytes, not 1"))
            // Every single-byte corruption is refused with a decoding error, or decodes to a valid
            // activity (one that encodes and decodes again to itself); none traps.
            var refused = 0
            for index in good.indices {
                var corrupt = good
                corrupt[index] ^= 0xFF
                if let error = reason(corrupt) {
                    refused += 1
                    switch error {
                    case .malformedPayload, .unsupportedPayloadVersion, .stringContainsNUL: break
                    default: XCTFail("byte \(index): \(error) is not a decoding error")
                    }
                    if index < 4 {  // the version, a uint32 first
                        guard case .unsupportedPayloadVersion = error else { return XCTFail("byte \(index) of the version: \(error)") }
                    }
                    continue
                }
                let copy = try UserActivity(payload: corrupt)
                XCTAssertGreaterThanOrEqual(index, 4, "a corrupted version was accepted")
                XCTAssertFalse(copy.activityType.isEmpty, "byte \(index)")
                let encoded = try copy.encodedPayload()
                let again = try UserActivity(payload: encoded)
                XCTAssertEqual(again.activityType, copy.activityType, "byte \(index)")
                XCTAssertEqual(try again.encodedPayload(), encoded, "byte \(index): decoded to something that does not round-trip")
            }
            XCTAssertGreaterThanOrEqual(refused, 4, "at least every corruption of the version is refused")
        }
    }

    func testUnknownPropertiesFromANewerSenderAreIgnored() throws {
        let data = try body(["title": .string("T"), "futureThing": .bool(true)])
        try MainActor.assumeIsolated {
            XCTAssertEqual(try UserActivity(payload: data).title, "T")
        }
    }
}

/// A hand-made payload: `version` and a boxed `body`.
func payload(version: UInt32 = 1, _ body: Variant) throws -> Data {
    try Variant.tuple([.uint32(version), .boxed(body)]).serialized()
}

/// A hand-made version 1 payload with these properties and userInfo.
func body(_ properties: [String: Variant], info: [String: Variant] = [:]) throws -> Data {
    try payload(.tuple([.string("com.example.t"), .dictionary(properties), .dictionary(info)]))
}

/// GLib's GVariant serialisation as Baton uses it.
final class VariantTests: XCTestCase {
    func testRoundTripInNormalForm() throws {
        let value = Variant.tuple([.uint32(1), .string("é"), .dictionary(["b": .bool(true), "a": .array(elementType: "s", [.string("x")])]),
                                   .bytes(Data([1, 2])), .boxed(.double(1.5)), .int64(-1), .uint64(.max)])
        let data = try value.serialized()
        XCTAssertEqual(try Variant(serialized: data, type: value.typeString), value)
        XCTAssertEqual(try value.serialized(), data, "dictionary keys are sorted: the bytes are deterministic")
    }

    func testNonNormalFormAndWrongTypesAreRefused() throws {
        let data = try Variant.string("hello").serialized()
        XCTAssertThrowsError(try Variant(serialized: data, type: "u"))
        XCTAssertThrowsError(try Variant(serialized: Data([0x68, 0x69]), type: "s")) {  // no NUL terminator
            XCTAssertEqual($0 as? VariantError, .notNormalForm(type: "s", size: 2))
        }
        XCTAssertThrowsError(try Variant(serialized: data, type: "not a type")) {
            XCTAssertEqual($0 as? VariantError, .invalidTypeString("not a type"))
        }
        XCTAssertThrowsError(try Variant.string("a\u{0}b").serialized()) {
            XCTAssertEqual($0 as? VariantError, .stringContainsNUL("a\u{0}b"))
        }
        XCTAssertThrowsError(try Variant.array(elementType: "s", [.int64(1)]).serialized())
    }
}
