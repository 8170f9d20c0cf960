import Foundation

/// The delegate of a `UserActivity` (Foundation's `NSUserActivityDelegate`); every method is
/// optional.
@MainActor
public protocol UserActivityDelegate: AnyObject {
    /// The activity is about to be saved (lazily after `needsSave`, and before it is sent to
    /// another device): bring `userInfo` and the other data-bearing properties up to date.
    /// Called for activities no responder or document manages (about-handoff, "User
    /// Activity Delegate").
    func userActivityWillSave(_ userActivity: UserActivity)
    /// The activity was continued on another device.
    func userActivityWasContinued(_ userActivity: UserActivity)
    /// The continuing side opened streams to this activity (handoff-programming-guide, "Using
    /// Continuation Streams"): read its request from `inputStream`, answer on `outputStream`.
    /// Called only for an activity with `supportsContinuationStreams`, over an authenticated
    /// connection from a device of the group.
    func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                      outputStream: ContinuationOutputStream)
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ userActivity: UserActivity) {}
    public func userActivityWasContinued(_ userActivity: UserActivity) {}
    public func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                             outputStream: ContinuationOutputStream) {
        inputStream.close()  // nobody takes the streams: the other side sees them end
    }
}

/// An object that restores state from a continued activity (`NSUserActivityRestoring`).
/// `Responder` and `Document` conform; the restoration handler of
/// `application(_:continue:restorationHandler:)` takes these.
@MainActor
public protocol UserActivityRestoring: AnyObject {
    func restoreUserActivityState(_ userActivity: UserActivity)
}

extension Responder: UserActivityRestoring {}

/// What shares a runtime-managed activity: responders and documents. Each gets
/// `updateUserActivityState(_:)` when the activity is saved.
@MainActor
protocol UserActivityOwner: AnyObject {
    func updateUserActivityState(_ activity: UserActivity)
}

extension Responder: UserActivityOwner {}
