import Baton
import Foundation

/// What a Continue notification says, made safe to show: the activity's title and its device's
/// name come from another device, so each is cut to `maximumLength` characters and every
/// character that would not show as itself is written as a visible escape (`PrintableText`);
/// the body, which some notification servers read as markup, also has `&`, `<` and `>` escaped.
public enum NotificationText {
    /// The most characters of one remote string shown.
    public static let maximumLength = 80

    /// "Continue ‹title› from ‹device›" (the title falls back to the activity type). Plain text,
    /// as the Desktop Notifications specification has summaries.
    public static func summary(for activity: NearbyActivity) -> String {
        "Continue \(shown(activity.title ?? activity.activityType)) from \(shown(activity.device))"
    }

    /// Where it continues, as markup: "‹title› — in ‹destination›".
    public static func body(for activity: NearbyActivity, destination: String) -> String {
        markupEscaped("\(shown(activity.title ?? activity.activityType)) — in \(shown(destination))")
    }

    /// `text` cut to `maximumLength` characters (an ellipsis says it was) and escaped for display.
    public static func shown(_ text: String) -> String {
        PrintableText.escaped(text.count > maximumLength ? String(text.prefix(maximumLength)) + "…" : text)
    }

    /// `text` with `&`, `<` and `>` written as entities.
    public static func markupEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
