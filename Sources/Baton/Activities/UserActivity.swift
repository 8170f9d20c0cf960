/// A user activity (Foundation's `NSUserActivity`): what the user is doing, in a form that can
/// be continued elsewhere. The user-activities layer gives it its behaviour.
@MainActor
public final class UserActivity {
    /// The activity's type, a reverse-DNS string the app declares (immutable).
    public let activityType: String
    /// A user-visible title.
    public var title: String?
    /// The state needed to continue the activity.
    public var userInfo: [AnyHashable: Any]?

    public init(activityType: String) {
        self.activityType = activityType
    }
}
