import Foundation
import Logging

/// What the process that launched this app said in its environment about why: the agent that
/// starts an installed app to continue an activity sets `BATON_CONTINUE_ACTIVITY_TYPE` to the
/// activity's type, and the app finds it in its launch options as
/// `Application.LaunchOptionsKey.userActivityType`, as UIKit's apps do.
public enum LaunchEnvironment {
    /// The variable the launcher sets to the type of the activity to continue.
    public static let continueActivityTypeVariable = "BATON_CONTINUE_ACTIVITY_TYPE"
    /// The longest activity type taken from it (reverse-DNS strings are far shorter).
    public static let maximumTypeLength = 1024

    /// The launch options the environment gives, read and then removed from the environment so
    /// that processes this app starts do not inherit them. A value that is empty, too long or
    /// not printable is dropped (and logged).
    static func takeLaunchOptions() -> [Application.LaunchOptionsKey: Any] {
        guard let value = getenv(continueActivityTypeVariable).map({ String(cString: $0) }) else { return [:] }
        unsetenv(continueActivityTypeVariable)
        guard !value.isEmpty, value.utf8.count <= maximumTypeLength, PrintableText.isPrintable(value) else {
            Logger(label: "baton").notice("ignoring \(continueActivityTypeVariable)=\(PrintableText.escaped(String(value.prefix(64)))): not an activity type")
            return [:]
        }
        return [.userActivityType: value]
    }
}
