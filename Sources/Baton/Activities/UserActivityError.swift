/// Why a value was refused by a `UserActivity`, or a payload could not be read.
public enum UserActivityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A userInfo value of a type Handoff cannot carry; `key` is the path to it (`a.b[2]`).
    case unsupportedUserInfoValue(key: String, type: String)
    /// A userInfo key that is not a string.
    case unsupportedUserInfoKey(key: String, type: String)
    /// A string (a key, a value, the title…) with a NUL character, which GVariant cannot hold.
    case stringContainsNUL(field: String)
    /// `webpageURL` must be http or https (handoff-programming-guide, "Web Browser-to-Native
    /// App Handoff": "Any other scheme throws an exception").
    case webpageURLNotHTTP(url: String)
    /// The payload is larger than `UserActivity.payloadLimit`.
    case payloadTooLarge(size: Int, limit: Int)
    /// The payload is not a serialised activity: the reason says what was wrong.
    case malformedPayload(reason: String)
    /// The payload was written by a newer Baton.
    case unsupportedPayloadVersion(UInt32)

    public var description: String {
        switch self {
        case .unsupportedUserInfoValue(let key, let type):
            "userInfo[\(key)] is a \(type); Handoff carries String, numbers, Bool, Data, Date, URL, UUID, NSNull, and arrays, sets and dictionaries of them"
        case .unsupportedUserInfoKey(let key, let type):
            "userInfo key \(key) is a \(type); keys must be strings"
        case .stringContainsNUL(let field): "\(field) contains a NUL character"
        case .webpageURLNotHTTP(let url): "webpageURL \(url) is refused: only http and https URLs can be handed off"
        case .payloadTooLarge(let size, let limit): "the activity payload is \(size) bytes, over the limit of \(limit)"
        case .malformedPayload(let reason): "the activity payload is malformed: \(reason)"
        case .unsupportedPayloadVersion(let v): "the activity payload has version \(v), newer than this Baton reads"
        }
    }
}
