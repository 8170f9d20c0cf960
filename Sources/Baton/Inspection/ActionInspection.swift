/// Where an action would go right now and whether it is enabled: the answer to "why is this
/// menu item grey?".
///
/// The target is found as `Application.target(forAction:to:from:)` finds it (along the
/// responder chain from the key window's first responder, then the main window's, the
/// application and its delegate), and enabled by the rule menus use
/// (`Application.isEnabled(_:to:)`, AppKit's "Enabling Menu Items"): no target disables;
/// a target adopting `UserInterfaceValidations` decides; any other target enables.
public struct ActionInspection: Codable, Sendable, Equatable {
    /// The action's name.
    public var name: String
    /// Whether an action of that name is known here: an item of the main menu sends it, or it
    /// is one of the standard key-binding commands. False means nothing else is meaningful.
    public var isKnown: Bool
    /// The title of the main-menu item that sends it, if one does.
    public var menuItemTitle: String?
    /// The description of the object the action would reach now, or nil when none handles it.
    public var target: String?
    /// The target's dynamic type name.
    public var targetTypeName: String?
    /// Whether it is enabled now, by the menus' rule.
    public var isEnabled: Bool

    /// An answer with these facts.
    public init(name: String, isKnown: Bool, menuItemTitle: String? = nil, target: String? = nil,
                targetTypeName: String? = nil, isEnabled: Bool) {
        self.name = name
        self.isKnown = isKnown
        self.menuItemTitle = menuItemTitle
        self.target = target
        self.targetTypeName = targetTypeName
        self.isEnabled = isEnabled
    }
}

extension Application {
    /// Where `action` would go now, with no particular target and no menu item as sender, and
    /// whether an item sending it would be enabled (see `ActionInspection`).
    public func inspectAction(_ action: AnyAction) -> ActionInspection {
        let item = InspectedItem(action: action)
        let found = action.target(in: self, to: nil, from: item)
        return ActionInspection(name: action.name, isKnown: true, target: found.map(Self.describeTarget),
                                targetTypeName: found.map { "\(type(of: $0))" }, isEnabled: isEnabled(item))
    }

    /// Where the action called `name` would go now and whether it is enabled. Actions are
    /// typed, so a name is found among the actions the app can send by name: the items of the
    /// main menu (searched top to bottom, submenus in place; that item's own target and
    /// validation are used, as the menu would), then the standard key-binding commands
    /// (`StandardKeyBindings`). An unknown name gives `isKnown == false`.
    public func inspectAction(named name: String) -> ActionInspection {
        if let item = mainMenu.flatMap({ Self.menuItem(sending: name, in: $0) }), let action = item.action {
            let found = action.target(in: self, to: item.target, from: item)
            let autoenabled = item.menu?.autoenablesItems ?? true
            return ActionInspection(name: name, isKnown: true, menuItemTitle: item.title,
                                    target: found.map(Self.describeTarget), targetTypeName: found.map { "\(type(of: $0))" },
                                    isEnabled: autoenabled ? Menu.isEnabledByChain(item, in: self) : item.isEnabled)
        }
        if let action = StandardKeyBindings.table.values.first(where: { $0.name == name }) {
            return inspectAction(action)
        }
        return ActionInspection(name: name, isKnown: false, isEnabled: false)
    }

    private static func menuItem(sending name: String, in menu: Menu) -> MenuItem? {
        for item in menu.items where !item.isSeparatorItem {
            if item.action?.name == name { return item }
            if let submenu = item.submenu, let found = menuItem(sending: name, in: submenu) { return found }
        }
        return nil
    }

    private static func describeTarget(_ target: AnyObject) -> String {
        (target as? Responder)?.responderDescription ?? "\(type(of: target))"
    }
}

/// The stand-in item an inspected action is validated with: its action, tag 0.
@MainActor
private struct InspectedItem: ValidatedUserInterfaceItem {
    let action: AnyAction?
    var tag: Int { 0 }
}
