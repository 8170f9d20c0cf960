import Foundation

/// A command in a `Menu` (AppKit's `NSMenuItem`): a title, the typed action it sends and to
/// whom, a key equivalent, a tag, a state, and possibly a submenu.
///
/// Choosing the item — a person picking it in a toolkit's menu bar, or its key equivalent
/// (`Menu.performKeyEquivalent(with:)`) — sends `action` with
/// `Application.sendAction(_:to:from:)` to `target`, or along the responder chain when
/// `target` is nil, with the item as sender. In a menu that `autoenablesItems` (the default),
/// `isEnabled` is set by `Menu.update()` with AppKit's rule ("Enabling Menu Items"), which is
/// `Application.isEnabled(_:to:)`: the item adopts `ValidatedUserInterfaceItem`, so a target's
/// `validateUserInterfaceItem(_:)` is given the item itself and may read its `action` and `tag`.
///
/// Changing the title, action, key equivalent, state, submenu or visibility of an item in a
/// menu posts `Menu.didChangeItemNotification`, so a toolkit showing the menu redraws it.
///
/// Deviation: `action` is the erased typed action (`AnyAction?`), not a `Selector?`; make
/// items with `MenuItem(title:action:keyEquivalent:)` passing a typed action (`.copy`).
@MainActor
open class MenuItem: ValidatedUserInterfaceItem {
    /// The title shown (`title`).
    open var title: String { didSet { changed(title != oldValue) } }
    /// The action sent when the item is chosen (`action`); nil sends nothing.
    open var action: AnyAction? { didSet { changed(action != oldValue) } }
    /// Who gets the action (`target`, weak as in AppKit); nil sends it along the responder
    /// chain from the key window's first responder.
    open weak var target: AnyObject?
    /// The key that chooses the item with `keyEquivalentModifierMask` held (`keyEquivalent`);
    /// "" for none. An uppercase letter means the Shift key too, as in AppKit: "C" with
    /// `.command` is Command-Shift-C.
    open var keyEquivalent: String { didSet { changed(keyEquivalent != oldValue) } }
    /// The modifier keys of the key equivalent (`keyEquivalentModifierMask`); `.command` by
    /// default, as in AppKit.
    open var keyEquivalentModifierMask: Event.ModifierFlags = .command {
        didSet { changed(keyEquivalentModifierMask != oldValue) }
    }
    /// An integer the app chooses to tell items apart (`tag`); 0 by default.
    open var tag = 0
    /// On, off or mixed (`state`): a check mark or a dash next to the title; off by default.
    open var state: ControlStateValue = .off { didSet { changed(state != oldValue) } }
    /// Whether the item can be chosen (`isEnabled`). In a menu that `autoenablesItems`,
    /// `Menu.update()` sets it from the responder chain; otherwise the app sets it.
    open var isEnabled = true
    /// Whether the item is left out of the menu as shown (`isHidden`); a hidden item's key
    /// equivalent does nothing.
    open var isHidden = false { didSet { changed(isHidden != oldValue) } }
    /// Any object the app attaches to the item (`representedObject`).
    open var representedObject: Any?
    /// The menu the item opens (`submenu`); choosing an item with a submenu sends nothing.
    open var submenu: Menu? {
        didSet {
            guard submenu !== oldValue else { return }
            oldValue?.supermenu = nil
            submenu?.supermenu = menu
            changed(true)
        }
    }
    /// Whether the item is a separator line (`isSeparatorItem`), made by `separator()`.
    public let isSeparatorItem: Bool
    /// The menu the item is in (`menu`), or nil.
    public internal(set) weak var menu: Menu? {
        didSet { submenu?.supermenu = menu }
    }

    /// Whether the item has a submenu (`hasSubmenu`).
    open var hasSubmenu: Bool { submenu != nil }

    /// An item titled `string` sending `selector` when chosen with `charCode` (with
    /// `.command`) as its key equivalent (`init(title:action:keyEquivalent:)`).
    public init(title string: String, action selector: AnyAction?, keyEquivalent charCode: String) {
        title = string
        action = selector
        keyEquivalent = charCode
        isSeparatorItem = false
    }

    /// An item titled `string` sending the typed action `selector` when chosen
    /// (`init(title:action:keyEquivalent:)`): `MenuItem(title: "Copy", action: .copy, keyEquivalent: "c")`.
    public convenience init<Handler>(title string: String, action selector: Action<Handler>, keyEquivalent charCode: String = "") {
        self.init(title: string, action: AnyAction(selector), keyEquivalent: charCode)
    }

    /// An item with no title, action or key equivalent (`init()`).
    public convenience init() {
        self.init(title: "", action: nil, keyEquivalent: "")
    }

    private init(separator: Void) {
        title = ""
        keyEquivalent = ""
        isSeparatorItem = true
        isEnabled = false
    }

    /// A separator line (`separator()`): disabled, with no action.
    public class func separator() -> MenuItem { MenuItem(separator: ()) }

    /// Sends the item's action (`target`, or along the chain, the item as sender), as choosing
    /// it does; returns whether an object handled it. Nothing is sent for an item that has no
    /// action, or is disabled once validated.
    @discardableResult
    public func performAction(in application: Application = .shared) -> Bool {
        guard let action, Menu.validate(self, in: application) else { return false }
        return action.send(in: application, to: target, from: self)
    }

    /// The title, for messages.
    var itemDescription: String { "'\(title)'" }

    private func changed(_ didChange: Bool) {
        if didChange { menu?.itemChanged(self) }
    }
}
