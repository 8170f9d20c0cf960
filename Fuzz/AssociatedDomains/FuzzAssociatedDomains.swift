@testable import BatonContinuity
import Foundation
import FuzzSupport

// Associated-domain files a web server serves (up to `AssociatedDomains.sizeLimit`):
// `AssociatedDomains.apps(in:domain:)`, the JSON parsing behind web-to-app handoff.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAssociatedDomains(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard input.count <= AssociatedDomains.sizeLimit else { return 0 }
    _ = try? AssociatedDomains.apps(in: input, domain: "example.com")
    return 0
}

private func seeds() throws -> [String: Data] {
    func json(_ object: Any) throws -> Data { try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }
    return [
        "apple-example": try json([
            "applinks": ["apps": [], "details": [["appID": "TEAM123456.com.example.App", "paths": ["/docs/*"]]]],
            "activitycontinuation": ["apps": ["TEAM123456.com.example.App", "TEAM123456.com.example.Other"]],
            "webcredentials": ["apps": ["TEAM123456.com.example.App"]],
        ]),
        "continuation-only": try json(["activitycontinuation": ["apps": ["ABCDE12345.org.baton.Reader"]]]),
        "no-continuation": try json(["applinks": ["details": []]]),
        // Almost right: apps not strings, not an object at all, deep nesting, escapes.
        "apps-not-strings": try json(["activitycontinuation": ["apps": [1, true, NSNull()]]]),
        "array-root": Data("[\"activitycontinuation\"]".utf8),
        "deep": Data((String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8),
        "escapes": Data(#"{"activitycontinuation":{"apps":["T.\u0041\ud83d\ude00\u0000x"]}}"#.utf8),
        "numbers": Data(#"{"a":[1e999,-0,0.1e-400,12345678901234567890123]}"#.utf8),
    ]
}

FuzzDriver.run(fuzzAssociatedDomains)
