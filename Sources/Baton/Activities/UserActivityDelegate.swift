import Foundation

/// The delegate of a `UserActivity` (Foundation's `NSUserActivityDelegate`); every method is
/// optional, and each has Foundation's signature with types renamed, except the streams method:
/// Baton's continuation streams are `ContinuationInputStream`/`ContinuationOutputStream` on the
/// GLib loop, not Foundation's run-loop `InputStream`/`OutputStream`. Baton calls the methods on
/// the main actor (Foundation calls some on a background queue; code that hops to the main
/// queue, as Apple's listings do, works unchanged).
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
    /// Does nothing.
    public func userActivityWillSave(_ userActivity: UserActivity) {}
    /// Does nothing.
    public func userActivityWasContinued(_ userActivity: UserActivity) {}
    /// Closes the input stream, so the continuing side sees the streams end.
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
    /// Restores the state needed to continue `userActivity` (`restoreUserActivityState(_:)`):
    /// called, on the main actor, on each object passed to the restoration handler.
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
