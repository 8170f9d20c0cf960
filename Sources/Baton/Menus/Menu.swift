import Foundation

/// A list of `MenuItem`s (AppKit's `NSMenu`): the app's main menu (`Application.mainMenu`),
/// whose items' submenus are the menus of the menu bar, or any menu of its own.
///
/// `update()` enables and disables the items by AppKit's automatic enabling when
/// `autoenablesItems` is true (the default; "Enabling Menu Items"), with the rule the GTK
/// actions use too, `Application.isEnabled(_:to:)`. `performKeyEquivalent(with:)` finds the
/// enabled item whose key equivalent an event is, in this menu or its submenus, and sends its
/// action. Adding, removing or changing an item posts `didAddItemNotification`,
/// `didRemoveItemNotification` or `didChangeItemNotification`, as in AppKit, with the item's
/// index under `"NSMenuItemIndex"`.
@MainActor
open class Menu {
    /// The menu's title (`title`): the name shown in the menu bar for a submenu of the main
    /// menu.
    open var title: String
    /// The items, top to bottom (`items`).
    public private(set) var items: [MenuItem] = []
    /// Whether `update()` enables items from the responder chain (`autoenablesItems`); true
    /// by default. When false, each item's `isEnabled` is what the app set.
    open var autoenablesItems = true
    /// The delegate (`delegate`, weak), asked `menuNeedsUpdate(_:)` before the menu is
    /// validated.
    open weak var delegate: (any MenuDelegate)?
    /// The menu whose item has this menu as submenu (`supermenu`), or nil.
    public internal(set) weak var supermenu: Menu?

    /// A menu titled `title` with no items (`init(title:)`).
    public init(title: String = "") {
        self.title = title
    }

    /// How many items the menu has (`numberOfItems`).
    open var numberOfItems: Int { items.count }

    // MARK: Adding and removing items

    /// Adds `newItem` at the bottom (`addItem(_:)`). An item already in another menu is
    /// refused (AppKit raises), and logged.
    open func addItem(_ newItem: MenuItem) { insertItem(newItem, at: items.count) }

    /// Makes an item titled `string` sending `selector`, with `charCode` as key equivalent,
    /// adds it at the bottom and returns it (`addItem(withTitle:action:keyEquivalent:)`).
    @discardableResult
    open func addItem<Handler>(withTitle string: String, action selector: Action<Handler>, keyEquivalent charCode: String) -> MenuItem {
        let item = MenuItem(title: string, action: selector, keyEquivalent: charCode)
        addItem(item)
        return item
    }

    /// Inserts `newItem` at `index` (`insertItem(_:at:)`), 0 being the top; `index` must be
    /// within `0...numberOfItems`. An item already in another menu is refused and logged.
    open func insertItem(_ newItem: MenuItem, at index: Int) {
        precondition((0...items.count).contains(index), "Menu.insertItem(_:at:): index \(index) out of 0...\(items.count)")
        if let other = newItem.menu {
            Refusal.menuItemInAnotherMenu(item: newItem.itemDescription, menu: "'\(other.title)'").log()
            return
        }
        items.insert(newItem, at: index)
        newItem.menu = self
        post(Menu.didAddItemNotification, index: index)
    }

    /// Removes `item` (`removeItem(_:)`); nothing happens when it is not in this menu.
    open func removeItem(_ item: MenuItem) {
        guard let index = indexOfItem(item) else { return }
        removeItem(at: index)
    }

    /// Removes the item at `index` (`removeItem(at:)`).
    open func removeItem(at index: Int) {
        let item = items.remove(at: index)
        item.menu = nil
        post(Menu.didRemoveItemNotification, index: index)
    }

    /// Removes every item (`removeAllItems()`).
    open func removeAllItems() {
        while !items.isEmpty { removeItem(at: items.count - 1) }
    }

    // MARK: Finding items

    /// The item at `index` (`item(at:)`), or nil when there is none.
    open func item(at index: Int) -> MenuItem? { items.indices.contains(index) ? items[index] : nil }
    /// The first item titled `title` (`item(withTitle:)`), or nil.
    open func item(withTitle title: String) -> MenuItem? { items.first { $0.title == title } }
    /// The first item tagged `tag` (`item(withTag:)`), or nil.
    open func item(withTag tag: Int) -> MenuItem? { items.first { $0.tag == tag } }
    /// Where `item` is (`index(of:)` in AppKit's Swift spelling, `indexOfItem:` in
    /// Objective-C), or nil when it is not in this menu (AppKit returns -1).
    open func indexOfItem(_ item: MenuItem) -> Int? { items.firstIndex { $0 === item } }
    /// Where the first item titled `title` is (`indexOfItem(withTitle:)`), or nil.
    open func indexOfItem(withTitle title: String) -> Int? { items.firstIndex { $0.title == title } }
    /// Where the first item tagged `tag` is (`indexOfItem(withTag:)`), or nil.
    open func indexOfItem(withTag tag: Int) -> Int? { items.firstIndex { $0.tag == tag } }

    // MARK: Enabling and key equivalents

    /// Enables and disables the items (`update()`): the delegate's `menuNeedsUpdate(_:)`
    /// first; then, when `autoenablesItems`, each item that is not a separator is enabled by
    /// AppKit's rule ("Enabling Menu Items"): an item with a submenu is enabled; otherwise
    /// `Application.isEnabled(_:to:)` decides from its target or the responder chain, and
    /// the target's `validateUserInterfaceItem(_:)`. Submenus are updated too.
    open func update() {
        delegate?.menuNeedsUpdate(self)
        for item in items where !item.isSeparatorItem {
            if autoenablesItems { item.isEnabled = Menu.isEnabledByChain(item) }
            item.submenu?.update()
        }
    }

    /// Whether `item` is enabled by automatic enabling, as `update()` decides it: the one
    /// rule for Baton's menus and the toolkits that show them.
    public static func isEnabledByChain(_ item: MenuItem, in application: Application = .shared) -> Bool {
        if item.isSeparatorItem { return false }
        if item.hasSubmenu && item.action == nil { return true }
        return application.isEnabled(item, to: item.target)
    }

    /// Whether `item` can be chosen now: validated by the chain in a menu that
    /// `autoenablesItems` (and `isEnabled` set to that), otherwise `isEnabled`. Toolkits
    /// call it when they update what they show.
    public static func validate(_ item: MenuItem, in application: Application = .shared) -> Bool {
        if item.menu?.autoenablesItems ?? true { item.isEnabled = isEnabledByChain(item, in: application) }
        return item.isEnabled
    }

    /// Sends the action of the item whose key equivalent `event` is, and returns true; false
    /// when there is none (`performKeyEquivalent(with:)`, "Handling Key Events": the key
    /// window's views are offered a key equivalent first, then the main menu).
    ///
    /// Only key-down events are key equivalents. The menu is updated first; items are
    /// searched top to bottom, submenus in place; hidden, disabled and separator items are
    /// skipped. An item matches when its `keyEquivalent` is the event's
    /// `charactersIgnoringModifiers` and its `keyEquivalentModifierMask` the event's modifier
    /// flags (Shift, Control, Option, Command; masked with `.deviceIndependentFlagsMask`),
    /// by AppKit's rule for letters: an uppercase key equivalent or event character means
    /// Shift, so "C" with `.command` and "c" with `[.command, .shift]` are both
    /// Command-Shift-C. For a key that is not a letter, Shift counts only when the item's
    /// mask has it (the character typed already says Shift was held: "?" is Shift-/).
    open func performKeyEquivalent(with event: Event) -> Bool {
        guard event.type == .keyDown, let typed = event.charactersIgnoringModifiers, !typed.isEmpty else { return false }
        update()
        return sendKeyEquivalent(KeyEquivalent(typed, event.modifierFlags))
    }

    private func sendKeyEquivalent(_ pressed: KeyEquivalent) -> Bool {
        for item in items where !item.isSeparatorItem && !item.isHidden {
            if let submenu = item.submenu {
                if submenu.sendKeyEquivalent(pressed) { return true }
                continue
            }
            guard item.isEnabled, !item.keyEquivalent.isEmpty,
                  KeyEquivalent(item.keyEquivalent, item.keyEquivalentModifierMask).matches(pressed) else { continue }
            return item.performAction()
        }
        return false
    }

    // MARK: Notifications

    /// Posted after an item was added (`didAddItemNotification`); the object is the menu,
    /// `"NSMenuItemIndex"` in `userInfo` the item's index.
    public static let didAddItemNotification = Notification.Name("NSMenuDidAddItemNotification")
    /// Posted after an item was removed (`didRemoveItemNotification`), with its former index.
    public static let didRemoveItemNotification = Notification.Name("NSMenuDidRemoveItemNotification")
    /// Posted after an item's title, action, key equivalent, state, submenu or visibility
    /// changed (`didChangeItemNotification`), with its index.
    public static let didChangeItemNotification = Notification.Name("NSMenuDidChangeItemNotification")

    func itemChanged(_ item: MenuItem) {
        if let index = indexOfItem(item) { post(Menu.didChangeItemNotification, index: index) }
    }

    private func post(_ name: Notification.Name, index: Int) {
        NotificationCenter.default.post(name: name, object: self, userInfo: ["NSMenuItemIndex": index])
    }
}
