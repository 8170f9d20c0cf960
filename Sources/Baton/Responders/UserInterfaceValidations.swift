/// An object that decides whether items sending its actions are enabled
/// (`NSUserInterfaceValidations`).
///
/// When the responder chain's target for an item's action adopts this protocol, the item is
/// enabled only if `validateUserInterfaceItem(_:)` returns true (AppKit's automatic menu
/// enabling, "Enabling Menu Items"); a target that does not adopt it enables the item. Baton
/// asks it in `Application.isEnabled(_:to:)`, which toolkits call each time the app updates
/// its windows (`Application.updateWindows()`), and again just before an item's action is
/// sent.
@MainActor
public protocol UserInterfaceValidations {
    /// Whether `item` should be enabled (`validateUserInterfaceItem(_:)`). Check the item's
    /// `action` (and, if you must, its `tag`) to decide, as AppKit advises, and return true
    /// for the actions you do not know when a superclass may handle them.
    func validateUserInterfaceItem(_ item: any ValidatedUserInterfaceItem) -> Bool
}
