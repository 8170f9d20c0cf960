import BatonLoop
import Foundation

/// The payload reader as it was before the wire coder: GLib checks normal form and builds the
/// GVariant tree, `Variant(reading:)` walks it, and the userInfo is decoded from the `Variant`.
/// It is the reference the direct reader (`UserActivity(payload:)`) is compared with, input by
/// input, by the differential tests and the ActivityPayload fuzz target; nothing else uses it.
enum GLibPayloadReference {
    /// Reads `data` as `UserActivity(payload:)` did with GLib.
    @MainActor
    static func activity(payload data: Data) throws(UserActivityError) -> UserActivity {
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
        let activity = UserActivity(activityType: type)
        try activity.applyProperties(properties)
        activity.storeDecodedUserInfo(try decodeDictionary(info, path: ""))
        return activity
    }

    static func decode(_ variant: Variant, path: String) throws(UserActivityError) -> Any {
        switch variant {
        case .string(let v): return v
        case .bool(let v): return v
        case .int64(let v): return NSNumber(value: v)
        case .uint64(let v): return NSNumber(value: v)
        case .double(let v): return NSNumber(value: v)
        case .bytes(let v): return v
        case .dictionary(let entries): return try decodeDictionary(entries, path: path)
        case .array(elementType: "v", let items):
            return try decodeBoxed(items, path: path)
        case .tuple(let items):
            return try decodeTagged(items, path: path)
        default:
            throw malformed(path, "GVariant type \(variant.typeString) is not a userInfo value")
        }
    }

    private static func decodeBoxed(_ items: [Variant], path: String) throws(UserActivityError) -> [Any] {
        var values: [Any] = []
        for (index, item) in items.enumerated() {
            guard case .boxed(let inner) = item else { throw malformed(path, "an array element is not boxed") }
            values.append(try decode(inner, path: "\(path)[\(index)]"))
        }
        return values
    }

    /// The one-element tuples that tag Date, URL, UUID and Set, and the unit tuple for NSNull.
    private static func decodeTagged(_ items: [Variant], path: String) throws(UserActivityError) -> Any {
        guard let only = items.first else { return NSNull() }
        guard items.count == 1 else { throw malformed(path, "a tuple of \(items.count) is not a userInfo value") }
        switch only {
        case .double(let seconds):
            return Date(timeIntervalSince1970: seconds)
        case .string(let text):
            guard let url = URL(string: text) else { throw malformed(path, "'\(text)' is not a URL") }
            return url
        case .bytes(let bytes):
            guard bytes.count == 16 else { throw malformed(path, "a UUID needs 16 bytes, not \(bytes.count)") }
            let t = Array(bytes)
            return UUID(uuid: (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15]))
        case .array(elementType: "v", let elements):
            var set = Set<AnyHashable>()
            for value in try decodeBoxed(elements, path: "\(path){}") {
                guard let element = value as? AnyHashable else { throw malformed(path, "a set element is not hashable") }
                set.insert(element)
            }
            return set
        default:
            throw malformed(path, "the tuple (\(only.typeString)) is not a userInfo value")
        }
    }

    static func decodeDictionary(_ entries: [String: Variant], path: String) throws(UserActivityError) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in entries {
            result[key] = try decode(value, path: path.isEmpty ? key : "\(path).\(key)")
        }
        return result
    }

    private static func malformed(_ path: String, _ reason: String) -> UserActivityError {
        .malformedPayload(reason: "userInfo[\(path)]: \(reason)")
    }
}

extension GLibPayloadReference {
    /// Reads `data` with both readers and says how they disagree, or nil when they agree: both
    /// refuse it with the same kind of error (the same error but for the wording of a
    /// malformed payload's reason), or both read equal activities.
    @MainActor
    static func disagreement(payload data: Data) -> String? {
        let direct: Result<UserActivity, UserActivityError> = Result { () throws(UserActivityError) in try UserActivity(payload: data) }
        let reference: Result<UserActivity, UserActivityError> = Result { () throws(UserActivityError) in try activity(payload: data) }
        switch (direct, reference) {
        case (.success(let a), .success(let b)):
            return same(a, b) ? nil : "the activities read differ"
        case (.failure(let a), .failure(let b)):
            switch (a, b) {
            case (.malformedPayload, .malformedPayload): return nil
            default: return a == b ? nil : "refused differently: \(a) / \(b)"
            }
        case (.success, .failure(let b)): return "read directly, refused by GLib: \(b)"
        case (.failure(let a), .success): return "refused directly (\(a)), read by GLib"
        }
    }

    /// Equal properties and equal userInfo values (`sameValue`).
    @MainActor
    static func same(_ a: UserActivity, _ b: UserActivity) -> Bool {
        a.activityType == b.activityType && a.title == b.title && a.webpageURL == b.webpageURL && a.referrerURL == b.referrerURL
            && a.targetContentIdentifier == b.targetContentIdentifier && a.persistentIdentifier == b.persistentIdentifier
            && a.expirationDate?.timeIntervalSince1970.bitPattern == b.expirationDate?.timeIntervalSince1970.bitPattern
            && a.keywords == b.keywords && a.requiredUserInfoKeys == b.requiredUserInfoKeys
            && a.isEligibleForHandoff == b.isEligibleForHandoff && a.isEligibleForSearch == b.isEligibleForSearch
            && a.isEligibleForPublicIndexing == b.isEligibleForPublicIndexing
            && a.supportsContinuationStreams == b.supportsContinuationStreams
            && sameValue(a.userInfo ?? [:], b.userInfo ?? [:])
    }

    /// Two decoded userInfo values are the same: the same type and value, doubles bit for bit
    /// (NaN included), sets as sets.
    static func sameValue(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case (let x as [AnyHashable: Any], let y as [AnyHashable: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
        case (let x as [String: Any], let y as [String: Any]):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { sameValue(value, $0) } ?? false }
        case (let x as [Any], let y as [Any]):
            return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
        case (let x as NSNumber, let y as NSNumber):
            return String(cString: x.objCType) == String(cString: y.objCType)
                && (String(cString: x.objCType) == "d" ? x.doubleValue.bitPattern == y.doubleValue.bitPattern : x == y)
        case (let x as Set<AnyHashable>, let y as Set<AnyHashable>):
            // Member by member: a NaN is no member of a set by ==, yet the same value.
            return x.count == y.count && x.allSatisfy { member in y.contains { sameValue(member.base, $0.base) } }
        case (let x as Date, let y as Date):
            return x.timeIntervalSince1970.bitPattern == y.timeIntervalSince1970.bitPattern
        case (let x as AnyHashable, let y as AnyHashable):
            return type(of: a) == type(of: b) && x == y
        default:
            return false
        }
    }
}
