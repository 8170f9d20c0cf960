/// How the application dispatches events (`NSApplication.sendEvent(_:)`, AppKit's rule): key
/// events go to the key window (`Window.sendEvent(_:)`, which offers key equivalents to its
/// views and the main menu, then the first responder); mouse events go to the window they name
/// (`Event.window`); a mouse event naming no window of the application is dropped.
///
/// With no key window (none on screen, or the application inactive), a key-down with Command or
/// Control is offered to the main menu, as AppKit does; a key event it does not take goes to the
/// application itself (`keyDown(with:)`…), and so to its next responder, the delegate when that
/// is a `Responder`, then `noResponder(for:)`. AppKit drops it there; a headless Baton app
/// (a terminal front end) still has keys to deliver while no window is key, and its delegate may
/// handle them.
extension Application {
    func route(_ event: Event) {
        guard event.isKeyEvent else {
            event.window?.sendEvent(event)
            return
        }
        if let keyWindow { return keyWindow.sendEvent(event) }
        switch event.type {
        case .keyDown:
            if mainMenuTakesKeyEquivalent(event) { return }
            keyDown(with: event)
        case .keyUp: keyUp(with: event)
        default: flagsChanged(with: event)
        }
    }
}

extension Application {
    /// Offers a key-down with Command or Control to the main menu as a key equivalent
    /// (`Menu.performKeyEquivalent(with:)`); true when one of its items took it. Both the key
    /// window and, with no key window, the application offer key equivalents through this.
    func mainMenuTakesKeyEquivalent(_ event: Event) -> Bool {
        event.isKeyEquivalentCandidate && mainMenu?.performKeyEquivalent(with: event) == true
    }
}

extension Event {
    /// A key-down with Command or Control: AppKit offers it as a key equivalent (to the window's
    /// views, then the main menu) before it is a `keyDown(with:)`.
    var isKeyEquivalentCandidate: Bool {
        type == .keyDown && !modifierFlags.isDisjoint(with: [.command, .control])
    }
}
