import Foundation
import Logging

/// An activity as bytes: the GVariant `(uv)` of docs/PROTOCOL.md — a version, and boxed in
/// the variant the body of that version; version 1's body is `(sa{sv}a{sv})`: activity type,
/// properties, userInfo. Normal form, little-endian. Any version can be read before its body,
/// so a newer payload is recognised as such.
extension UserActivity {
    /// The payload layout this Baton writes and reads.
    nonisolated public static let payloadVersion: UInt32 = 1
    /// Apple's advice: keep the payload under 3 KB (handoff-programming-guide, "Best
    /// Practices"). Larger payloads are sent, with a logged warning.
    nonisolated public static let payloadAdvisedSize = 3 * 1024
    /// The hard limit: larger payloads are refused with
    /// `CocoaError(.userActivityHandoffUserInfoTooLarge)`. 64 KiB: twenty times the advice,
    /// still one quick read on any link; bigger data belongs in continuation streams.
    nonisolated public static let payloadLimit = 64 * 1024

    private static let payloadType = "(uv)"
    private static let bodyType = "(sa{sv}a{sv})"

    /// Saves the activity (its responders, documents or delegate bring it up to date, as
    /// before any handoff), then serialises it. Throws
    /// `CocoaError(.userActivityHandoffUserInfoTooLarge)` over `payloadLimit`, or a
    /// `UserActivityError` for what cannot be encoded.
    public func payload() throws -> Data {
        ActivityRegistry.shared.save(self)
        return try encodedPayload()
    }

    /// Serialises the activity as it is, without saving first.
    public func encodedPayload() throws -> Data {
        let data = try serializedPayload()
        if data.count > UserActivity.payloadLimit {
            throw CocoaError(.userActivityHandoffUserInfoTooLarge, userInfo: [
                NSLocalizedDescriptionKey: UserActivityError.payloadTooLarge(size: data.count, limit: UserActivity.payloadLimit).description,
            ])
        }
        if data.count > UserActivity.payloadAdvisedSize {
            Logger(label: "baton").warning(
                "activity \(activityType) payload is \(data.count) bytes; Handoff advises under \(UserActivity.payloadAdvisedSize)")
        }
        return data
    }

    /// The activity as it is, serialised, with no size check and nothing logged (what
    /// `encodedPayload()` checks, and inspection measures).
    func serializedPayload() throws -> Data {
        let info = userInfo ?? [:]
        let variant = Variant.tuple([
            .uint32(UserActivity.payloadVersion),
            .boxed(.tuple([.string(activityType), .dictionary(try encodedProperties()), try UserInfoCoding.encode(info)])),
        ])
        do { return try variant.serialized() } catch { throw UserActivityError.malformedPayload(reason: "\(error)") }
    }

    /// Reads a payload from untrusted bytes: size, normal form, version and every field's type
    /// are checked, and each problem is a `UserActivityError` that says what was wrong.
    public convenience init(payload data: Data) throws(UserActivityError) {
        guard data.count <= UserActivity.payloadLimit else {
            throw .payloadTooLarge(size: data.count, limit: UserActivity.payloadLimit)
        }
        let variant: Variant
        do { variant = try Variant(serialized: data, type: UserActivity.payloadType) } catch {
            throw .malformedPayload(reason: "\(error)")
        }
        guard case .tuple(let outer) = variant, outer.count == 2, case .uint32(let version) = outer[0],
              case .boxed(let body) = outer[1] else {
            throw .malformedPayload(reason: "not an activity")
        }
        guard version == UserActivity.payloadVersion else { throw .unsupportedPayloadVersion(version) }
        guard case .tuple(let fields) = body, body.typeString == UserActivity.bodyType,
              case .string(let type) = fields[0], case .dictionary(let properties) = fields[1],
              case .dictionary(let info) = fields[2] else {
            throw .malformedPayload(reason: "a version 1 body must be \(UserActivity.bodyType), not \(body.typeString)")
        }
        guard !type.isEmpty else { throw .malformedPayload(reason: "the activity type is empty") }
        self.init(activityType: type)
        try applyProperties(properties)
        storeDecodedUserInfo(try UserInfoCoding.decodeDictionary(info, path: ""))
    }

    private func encodedProperties() throws(UserActivityError) -> [String: Variant] {
        var p: [String: Variant] = [:]
        func text(_ key: String, _ value: String?) throws(UserActivityError) {
            guard let value else { return }
            guard !value.utf8.contains(0) else { throw .stringContainsNUL(field: key) }
            p[key] = .string(value)
        }
        try text("title", title)
        try text("webpageURL", webpageURL?.absoluteString)
        try text("referrerURL", referrerURL?.absoluteString)
        try text("targetContentIdentifier", targetContentIdentifier)
        try text("persistentIdentifier", persistentIdentifier)
        if let expirationDate { p["expirationDate"] = .double(expirationDate.timeIntervalSince1970) }
        if !keywords.isEmpty { p["keywords"] = .array(elementType: "s", keywords.sorted().map(Variant.string)) }
        if let requiredUserInfoKeys {
            p["requiredUserInfoKeys"] = .array(elementType: "s", requiredUserInfoKeys.sorted().map(Variant.string))
        }
        p["eligibleForHandoff"] = .bool(isEligibleForHandoff)
        p["eligibleForSearch"] = .bool(isEligibleForSearch)
        p["eligibleForPublicIndexing"] = .bool(isEligibleForPublicIndexing)
        p["supportsContinuationStreams"] = .bool(supportsContinuationStreams)
        return p
    }

    /// Known properties must have their type; unknown ones are ignored, so a newer sender
    /// can add properties without breaking older readers.
    private func applyProperties(_ p: [String: Variant]) throws(UserActivityError) {
        func text(_ key: String) throws(UserActivityError) -> String? {
            guard let value = p[key] else { return nil }
            guard case .string(let s) = value else { throw wrongType(key, value, "s") }
            return s
        }
        func url(_ key: String) throws(UserActivityError) -> URL? {
            guard let s = try text(key) else { return nil }
            guard let url = URL(string: s) else { throw .malformedPayload(reason: "\(key) '\(s)' is not a URL") }
            return url
        }
        func flag(_ key: String) throws(UserActivityError) -> Bool? {
            guard let value = p[key] else { return nil }
            guard case .bool(let b) = value else { throw wrongType(key, value, "b") }
            return b
        }
        func strings(_ key: String) throws(UserActivityError) -> Set<String>? {
            guard let value = p[key] else { return nil }
            guard case .array(elementType: "s", let items) = value else { throw wrongType(key, value, "as") }
            return Set(items.compactMap { if case .string(let s) = $0 { s } else { nil } })
        }
        title = try text("title")
        if let page = try url("webpageURL") { try setWebpageURL(page) }
        referrerURL = try url("referrerURL")
        targetContentIdentifier = try text("targetContentIdentifier")
        persistentIdentifier = try text("persistentIdentifier")
        if let value = p["expirationDate"] {
            guard case .double(let seconds) = value else { throw wrongType("expirationDate", value, "d") }
            expirationDate = Date(timeIntervalSince1970: seconds)
        }
        keywords = try strings("keywords") ?? []
        requiredUserInfoKeys = try strings("requiredUserInfoKeys")
        isEligibleForHandoff = try flag("eligibleForHandoff") ?? true
        isEligibleForSearch = try flag("eligibleForSearch") ?? false
        isEligibleForPublicIndexing = try flag("eligibleForPublicIndexing") ?? false
        supportsContinuationStreams = try flag("supportsContinuationStreams") ?? false
    }

    private func wrongType(_ key: String, _ value: Variant, _ expected: String) -> UserActivityError {
        .malformedPayload(reason: "property \(key) has type \(value.typeString), not \(expected)")
    }
}
