/// An input event (AppKit's `NSEvent`).
///
/// Baton is headless: it has no window server and delivers no mouse or keyboard events, so no
/// `Event` is ever made. The type exists so that AppKit methods that take an optional event,
/// such as `Responder.validateProposedFirstResponder(_:for:)`, port by renaming; Baton passes
/// `nil` for it.
public final class Event: Sendable {
    private init() {}
}
