/// Where in a userInfo a problem is, built only when there is one: the coders throw a failure
/// with the innermost step and each level adds its own while the error unwinds, so the happy
/// path formats no strings.
enum UserInfoPath {
    /// One step from a container to an item.
    enum Step {
        case key(String)
        case index(Int)
        case setMember
    }

    /// `a.b[2]`, `tags{}`: keys joined by dots, indices in brackets, set members as `{}`
    /// (the paths `UserActivityError` has always named).
    static func render(_ steps: [Step]) -> String {
        var text = ""
        for step in steps {
            switch step {
            case .key(let name): text += text.isEmpty ? name : ".\(name)"
            case .index(let index): text += "[\(index)]"
            case .setMember: text += "{}"
            }
        }
        return text
    }
}

/// Why a userInfo value cannot be encoded, and where (outermost step first once unwound).
struct UserInfoEncodingFailure: Error {
    enum Kind {
        case unsupportedValue(type: String)
        case unsupportedKey(description: String, type: String)
        case valueContainsNUL
        case keyContainsNUL(String)
    }

    let kind: Kind
    /// The path to the value (for a key: to the dictionary holding it).
    var steps: [UserInfoPath.Step] = []

    func adding(_ step: UserInfoPath.Step) -> UserInfoEncodingFailure {
        var copy = self
        copy.steps.insert(step, at: 0)
        return copy
    }

    /// The `UserActivityError` worded as before the wire coder.
    var error: UserActivityError {
        let path = UserInfoPath.render(steps)
        switch kind {
        case .unsupportedValue(let type): return .unsupportedUserInfoValue(key: path, type: type)
        case .unsupportedKey(let description, let type): return .unsupportedUserInfoKey(key: path + description, type: type)
        case .valueContainsNUL: return .stringContainsNUL(field: "userInfo[\(path)]")
        case .keyContainsNUL(let name): return .stringContainsNUL(field: "userInfo key \(path)\(name.debugDescription)")
        }
    }
}

/// Why a decoded userInfo is refused: bytes that are not a normal-form `Variant` (found before
/// anything else is checked, as GLib's normal-form check came first), or a well-formed value
/// that is not a userInfo value (found after the activity's properties).
enum UserInfoDecodingFailure: Error {
    case wire(WireFormatError)
    case notUserInfo(steps: [UserInfoPath.Step], reason: String)

    func adding(_ step: UserInfoPath.Step) -> UserInfoDecodingFailure {
        guard case .notUserInfo(let steps, let reason) = self else { return self }
        return .notUserInfo(steps: [step] + steps, reason: reason)
    }

    /// `userInfo[path]: reason`, as before the wire coder.
    static func reason(_ steps: [UserInfoPath.Step], _ reason: String) -> String {
        "userInfo[\(UserInfoPath.render(steps))]: \(reason)"
    }
}
