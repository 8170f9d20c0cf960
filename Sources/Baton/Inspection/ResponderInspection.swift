/// One link of a responder chain, as inspection shows it: the responder's description and
/// whether it holds a user activity.
public struct ResponderInspection: Codable, Sendable, Equatable {
    /// The responder's `responderDescription` (for a delegate that is not a `Responder`, its
    /// type name).
    public var description: String
    /// The responder's dynamic type name.
    public var typeName: String
    /// Whether this link is the window's first responder.
    public var isFirstResponder: Bool
    /// The type of the `userActivity` it holds, or nil when it holds none.
    public var userActivityType: String?
    /// Whether it holds a `userActivity` (`userActivityType != nil`).
    public var hasUserActivity: Bool { userActivityType != nil }

    /// A link with these facts.
    public init(description: String, typeName: String, isFirstResponder: Bool = false, userActivityType: String? = nil) {
        self.description = description
        self.typeName = typeName
        self.isFirstResponder = isFirstResponder
        self.userActivityType = userActivityType
    }
}

extension ResponderInspection {
    /// `responder` as a link of a chain whose first responder is `firstResponder`.
    @MainActor
    init(_ responder: Responder, firstResponder: Responder?) {
        self.init(description: responder.responderDescription, typeName: "\(type(of: responder))",
                  isFirstResponder: responder === firstResponder,
                  userActivityType: responder.userActivity.map(\.activityType))
    }

    /// The responder chain from `window`'s first responder (or the window) up to the
    /// application and its delegate, as actions sent to no target travel it
    /// (`ResponderChain`). A delegate that is not a `Responder` still receives actions last,
    /// so it ends the chain too.
    @MainActor
    static func chain(of window: Window, in application: Application) -> [ResponderInspection] {
        let first = window.firstResponder
        var links = ResponderChain.from(first ?? window).map { ResponderInspection($0, firstResponder: first) }
        if let delegate = application.delegate, !(delegate is Responder) {
            links.append(ResponderInspection(description: "\(type(of: delegate))", typeName: "\(type(of: delegate))"))
        }
        return links
    }
}
