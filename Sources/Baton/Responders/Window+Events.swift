/// How a window delivers its events (`NSWindow.sendEvent(_:)`), AppKit's rules written down once
/// ("Event Handling Basics", "Handling Key Events", "Handling Mouse Events"):
///
/// - A key-down with Command or Control is first a key equivalent: offered to the window's view
///   tree (`performKeyEquivalent(with:)`, which `View` passes to its subviews), then to the main
///   menu (`Application.mainMenu`, `Menu.performKeyEquivalent(with:)`); if neither handles it, and for every
///   other key-down, `keyDown(with:)` goes to the first responder and up the chain. Key-ups and
///   modifier changes go to the first responder.
/// - A left mouse-down goes to the view `hitTest(_:)` finds at `locationInWindow` (the window's
///   base coordinates, given to the content view as its superview's). A click in a window that
///   is not key makes it key (activating the application), and is delivered only when the hit
///   view's `acceptsFirstMouse(for:)` says so (AppKit's documented default: the first click
///   just brings the window forward). A delivered click in a view that accepts first responder
///   makes it first responder first, its ancestors asked `validateProposedFirstResponder(_:for:)`
///   with the event.
/// - The drags and the mouse-up that follow a mouse-down go to the view that got the mouse-down,
///   even outside it. Right and other buttons go to the hit view, without changing the first
///   responder.
/// - Scroll-wheel, mouse-entered and mouse-exited events go to the hit view (Baton has no
///   tracking areas: entered/exited are the toolkit's pointer crossing the view). Mouse-moved
///   events go to the first responder, only when `acceptsMouseMovedEvents` is true.
/// - A mouse event that hits no view goes to the window, and so up its chain.
extension Window {
    func route(_ event: Event) {
        switch event.type {
        case .keyDown:
            if event.isKeyEquivalentCandidate,
               performKeyEquivalent(with: event) || Application.shared.mainMenuTakesKeyEquivalent(event) { return }
            keyTarget.keyDown(with: event)
        case .keyUp: keyTarget.keyUp(with: event)
        case .flagsChanged: keyTarget.flagsChanged(with: event)
        case .leftMouseDown: leftMouseDown(event)
        case .leftMouseDragged: (mouseDownView ?? hitResponder(event)).mouseDragged(with: event)
        case .leftMouseUp: mouseUpTarget(event).mouseUp(with: event)
        case .rightMouseDown: otherButtonDown(event).rightMouseDown(with: event)
        case .rightMouseDragged: (mouseDownView ?? hitResponder(event)).rightMouseDragged(with: event)
        case .rightMouseUp: mouseUpTarget(event).rightMouseUp(with: event)
        case .otherMouseDown: otherButtonDown(event).otherMouseDown(with: event)
        case .otherMouseDragged: (mouseDownView ?? hitResponder(event)).otherMouseDragged(with: event)
        case .otherMouseUp: mouseUpTarget(event).otherMouseUp(with: event)
        case .mouseMoved: if acceptsMouseMovedEvents { keyTarget.mouseMoved(with: event) }
        case .mouseEntered: hitResponder(event).mouseEntered(with: event)
        case .mouseExited: hitResponder(event).mouseExited(with: event)
        case .scrollWheel: hitResponder(event).scrollWheel(with: event)
        }
    }

    /// The first responder, or the window when it has none.
    private var keyTarget: Responder { firstResponder ?? self }

    /// The view hit by the event's location, or the window when it hits none.
    private func hitResponder(_ event: Event) -> Responder {
        contentView?.hitTest(event.locationInWindow) ?? self
    }

    private func leftMouseDown(_ event: Event) {
        let hit = contentView?.hitTest(event.locationInWindow)
        if !isKeyWindow, canBecomeKey, isVisible {
            if !Application.shared.isActive { Application.shared.activate() }
            makeKeyAndOrderFront(nil)
            guard let hit, hit.acceptsFirstMouse(for: event) else { return }
        }
        mouseDownView = hit
        guard let hit else { return mouseDown(with: event) }
        if hit !== firstResponder, hit.acceptsFirstResponder { _ = makeFirstResponder(hit, for: event) }
        hit.mouseDown(with: event)
    }

    private func otherButtonDown(_ event: Event) -> Responder {
        let hit = contentView?.hitTest(event.locationInWindow)
        mouseDownView = hit
        return hit ?? self
    }

    /// The view that got the mouse-down (forgotten now), else the hit view.
    private func mouseUpTarget(_ event: Event) -> Responder {
        defer { mouseDownView = nil }
        return mouseDownView ?? hitResponder(event)
    }
}
