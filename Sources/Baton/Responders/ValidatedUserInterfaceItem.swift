/// An item a person can choose that sends an action — a menu item, a toolbar item, a
/// toolkit's action — and is enabled or disabled by the responder chain
/// (`NSValidatedUserInterfaceItem`).
///
/// AppKit's rule ("Enabling Menu Items", automatic menu enabling): the item's target is found
/// as `Application.target(forAction:to:from:)` finds it — along the responder chain when the
/// item has no target —; with no target the item is disabled; a target that adopts
/// `UserInterfaceValidations` decides with `validateUserInterfaceItem(_:)`; any other target
/// enables it. `Application.isEnabled(_:to:)` applies that rule. A validator reads the item's
/// `action` and `tag`, as AppKit's validators do.
///
/// Deviation: AppKit's `action` is a `Selector?`; Baton's actions are typed, so it is the
/// erased `AnyAction?`, which compares with a typed action (`item.action == .copy`).
@MainActor
public protocol ValidatedUserInterfaceItem {
    /// The action the item sends (`action`); nil for an item that sends none.
    var action: AnyAction? { get }
    /// The item's tag, an integer the app chooses to tell items apart (`tag`).
    var tag: Int { get }
}
