@testable import Baton
import BatonLoop
import Foundation

/// Payloads made by `UserActivity.encodedPayload()`, from the smallest activity to one with
/// every property and every userInfo type, and a few that are almost right.
@MainActor
public enum ActivitySeeds {
    public static func payloads() throws -> [String: Data] {
        let bare = UserActivity(activityType: "com.example.view")

        let full = UserActivity(activityType: "com.example.edit")
        full.title = "Draft — résumé"
        try full.setWebpageURL(URL(string: "https://example.com/docs/1?x=y#z"))
        full.referrerURL = URL(string: "https://example.org/")
        full.targetContentIdentifier = "doc-1"
        full.persistentIdentifier = "p-1"
        full.expirationDate = Date(timeIntervalSince1970: 1_800_000_000)
        full.keywords = ["alpha", "beta"]
        full.requiredUserInfoKeys = ["text"]
        full.isEligibleForSearch = true
        full.supportsContinuationStreams = true
        try full.setUserInfo([
            "text": "hello", "int": 42, "negative": Int64.min, "unsigned": UInt64.max, "double": 2.5, "flag": true,
            "data": Data([0, 1, 2]), "date": Date(timeIntervalSince1970: 0), "url": URL(string: "file:///tmp/a%20b")!,
            "uuid": UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)), "null": NSNull(),
            "list": [1, "two", [3.0]] as [Any], "set": Set<AnyHashable>(["a", "b"]),
            "nested": ["inner": ["deeper": ["x": 1]]] as [String: Any],
        ])

        let map = UserActivity(activityType: "com.example.map")
        try map.setUserInfo(["latitude": 48.85, "longitude": 2.35, "zoom": 12])

        var seeds: [String: Data] = [
            "bare": try bare.encodedPayload(),
            "full": try full.encodedPayload(),
            "map": try map.encodedPayload(),
        ]
        // Almost right: a newer version, a body of the wrong type, an empty type, a property of
        // the wrong type, a userInfo value of a type Handoff does not carry.
        seeds["version-2"] = try Variant.tuple([.uint32(2), .boxed(.string("future"))]).serialized()
        seeds["wrong-body"] = try Variant.tuple([.uint32(1), .boxed(.tuple([.string("t")]))]).serialized()
        seeds["empty-type"] = try body(type: "", properties: [:], info: [:])
        seeds["title-not-string"] = try body(type: "t", properties: ["title": .uint32(1)], info: [:])
        seeds["webpage-not-http"] = try body(type: "t", properties: ["webpageURL": .string("file:///etc/passwd")], info: [:])
        seeds["info-uint32"] = try body(type: "t", properties: [:], info: ["n": .uint32(1)])
        seeds["info-tuple-of-two"] = try body(type: "t", properties: [:], info: ["n": .tuple([.double(1), .double(2)])])
        seeds["info-uuid-short"] = try body(type: "t", properties: [:], info: ["u": .tuple([.bytes(Data([1, 2]))])])
        seeds["info-set-of-sets"] = try body(type: "t", properties: [:], info: [
            "s": .tuple([.array(elementType: "v", [.boxed(.tuple([.array(elementType: "v", [.boxed(.string("x"))])]))])]),
        ])
        // What the comparison with GLib's reader found: types `Variant` does not read as the
        // elements of empty arrays (read, as GLib's reader reads them), and framing offsets wider
        // than needed (refused, as GLib 2.74 refuses them).
        seeds["version-2-unread-types-in-empty-arrays"] = Data(base64Encoded: "AQAAnwAAAAAAAAAAAGEoYXhhKHkpKQ==")!
        seeds["version-2-offsets-wider-than-needed"] = Data([0x01, 0x3A, 0, 0, 0, 0, 0, 0]) + Data(count: 266) + Data([0])
            + Data("a(a(xady))".utf8)
        return seeds
    }

    static func body(type: String, properties: [String: Variant], info: [String: Variant]) throws -> Data {
        try Variant.tuple([.uint32(1), .boxed(.tuple([.string(type), .dictionary(properties), .dictionary(info)]))]).serialized()
    }
}
