/// The delegate of a `Menu` (AppKit's `NSMenuDelegate`). Every method is optional: the
/// protocol extension supplies defaults.
@MainActor
public protocol MenuDelegate: AnyObject {
    /// The menu is about to be validated — shown, or searched for a key equivalent — and
    /// may change its items now (`menuNeedsUpdate(_:)`). `Menu.update()` calls it first.
    func menuNeedsUpdate(_ menu: Menu)
}

extension MenuDelegate {
    /// Does nothing.
    public func menuNeedsUpdate(_ menu: Menu) {}
}
