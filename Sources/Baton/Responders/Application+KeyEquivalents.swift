extension Application {
    /// Offers a key equivalent to the main menu, after the key window's views declined it
    /// (`Window.sendEvent(_:)`); true when a menu item handled it.
    // H5 replaces: mainMenu?.performKeyEquivalent(with:)
    func mainMenuPerformsKeyEquivalent(_ event: Event) -> Bool { false }
}
