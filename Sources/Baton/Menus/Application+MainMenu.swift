import Foundation

/// The app's main menu (AppKit's `NSApplication.mainMenu`).
extension Application {
    /// The menu whose items' submenus are the menus of the menu bar (`mainMenu`): File, Edit,
    /// Window… BatonGtk shows it as the GTK application's menu bar, its key equivalents as
    /// accelerators. Setting it posts `didChangeMainMenuNotification`.
    public var mainMenu: Menu? {
        get { storedMainMenu }
        set {
            guard newValue !== storedMainMenu else { return }
            storedMainMenu = newValue
            NotificationCenter.default.post(name: Application.didChangeMainMenuNotification, object: self)
        }
    }

    /// Posted after `mainMenu` was set to another menu, so a toolkit shows the new one.
    ///
    /// Deviation: AppKit has no such notification (it draws the menu bar itself); Baton's
    /// toolkits need one.
    public static let didChangeMainMenuNotification = Notification.Name("BatonApplicationDidChangeMainMenuNotification")
}
