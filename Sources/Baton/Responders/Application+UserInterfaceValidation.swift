/// Whether an item is enabled: AppKit's automatic menu enabling ("Enabling Menu Items"), in
/// one place, for ``Menu`` and the toolkits that show items (BatonGtk's GTK actions).
extension Application {
    /// Whether `item` is enabled by AppKit's rule for an item with automatic enabling: its
    /// action's target is found as `target(forAction:to:from:)` finds it (with `target` nil,
    /// along the responder chain from the key window's first responder, with the item as
    /// sender); no target, or no action, disables it; a target that adopts
    /// `UserInterfaceValidations` decides with `validateUserInterfaceItem(_:)`; another target
    /// enables it. As in AppKit, a target that says no disables the item: the walk does not go
    /// on to the next responder.
    ///
    /// AppKit has this rule in `NSMenu`'s `update()` and `NSToolbarItem`'s `validate()`;
    /// Baton has it once, here: ``Menu/update()`` and the toolkits' items ask it.
    public func isEnabled(_ item: any ValidatedUserInterfaceItem, to target: AnyObject? = nil) -> Bool {
        guard let action = item.action, let found = action.target(in: self, to: target, from: item) else { return false }
        if let validator = found as? any UserInterfaceValidations { return validator.validateUserInterfaceItem(item) }
        return true
    }
}
