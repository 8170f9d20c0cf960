/// How an event travels up the responder chain: each event method's default passes the event to
/// `next`, and the responder with no `next` calls `noResponder(for:)` with the method's action,
/// as AppKit's `NSResponder` does ("Event Handling Basics": an unhandled event goes to the next
/// responder; at the end of the chain `noResponder(for:)`).
extension Responder {
    /// Passes `event` on with `method`, or ends the chain with `noResponder(for: message)`.
    func forward(_ event: Event, _ message: Action<Responder>, _ method: (Responder) -> Void) {
        if let next { method(next) } else { noResponder(for: message) }
    }

    /// Passes typed text on with `method`, or ends the chain with `noResponder(for: .insertText)`.
    func forwardText(_ method: (Responder) -> Void) {
        if let next { method(next) } else { noResponder(for: Action<Responder>.insertText) }
    }

    /// The last responder of the chain from this one.
    var lastInChain: Responder {
        var last = self
        for responder in ResponderChain.from(self) { last = responder }
        return last
    }
}

/// The event methods as actions: what `#selector(keyDown(with:))` is to AppKit, passed to
/// `noResponder(for:)` at the end of the chain. Every responder handles them, so
/// `tryToPerform(.keyDown, with: event)` calls `keyDown(with:)` as AppKit's would; a sender that
/// is not an `Event` is ignored.
extension Action where Handler == Responder {
    /// `keyDown(with:)`.
    public static let keyDown = Action("keyDown(with:)") { responder, sender in
        (sender as? Event).map(responder.keyDown(with:))
    }
    /// `keyUp(with:)`.
    public static let keyUp = Action("keyUp(with:)") { responder, sender in
        (sender as? Event).map(responder.keyUp(with:))
    }
    /// `flagsChanged(with:)`.
    public static let flagsChanged = Action("flagsChanged(with:)") { responder, sender in
        (sender as? Event).map(responder.flagsChanged(with:))
    }
    /// `mouseDown(with:)`.
    public static let mouseDown = Action("mouseDown(with:)") { responder, sender in
        (sender as? Event).map(responder.mouseDown(with:))
    }
    /// `mouseUp(with:)`.
    public static let mouseUp = Action("mouseUp(with:)") { responder, sender in
        (sender as? Event).map(responder.mouseUp(with:))
    }
    /// `mouseDragged(with:)`.
    public static let mouseDragged = Action("mouseDragged(with:)") { responder, sender in
        (sender as? Event).map(responder.mouseDragged(with:))
    }
    /// `mouseMoved(with:)`.
    public static let mouseMoved = Action("mouseMoved(with:)") { responder, sender in
        (sender as? Event).map(responder.mouseMoved(with:))
    }
    /// `mouseEntered(with:)`.
    public static let mouseEntered = Action("mouseEntered(with:)") { responder, sender in
        (sender as? Event).map(responder.mouseEntered(with:))
    }
    /// `mouseExited(with:)`.
    public static let mouseExited = Action("mouseExited(with:)") { responder, sender in
        (sender as? Event).map(responder.mouseExited(with:))
    }
    /// `rightMouseDown(with:)`.
    public static let rightMouseDown = Action("rightMouseDown(with:)") { responder, sender in
        (sender as? Event).map(responder.rightMouseDown(with:))
    }
    /// `rightMouseUp(with:)`.
    public static let rightMouseUp = Action("rightMouseUp(with:)") { responder, sender in
        (sender as? Event).map(responder.rightMouseUp(with:))
    }
    /// `rightMouseDragged(with:)`.
    public static let rightMouseDragged = Action("rightMouseDragged(with:)") { responder, sender in
        (sender as? Event).map(responder.rightMouseDragged(with:))
    }
    /// `otherMouseDown(with:)`.
    public static let otherMouseDown = Action("otherMouseDown(with:)") { responder, sender in
        (sender as? Event).map(responder.otherMouseDown(with:))
    }
    /// `otherMouseUp(with:)`.
    public static let otherMouseUp = Action("otherMouseUp(with:)") { responder, sender in
        (sender as? Event).map(responder.otherMouseUp(with:))
    }
    /// `otherMouseDragged(with:)`.
    public static let otherMouseDragged = Action("otherMouseDragged(with:)") { responder, sender in
        (sender as? Event).map(responder.otherMouseDragged(with:))
    }
    /// `scrollWheel(with:)`.
    public static let scrollWheel = Action("scrollWheel(with:)") { responder, sender in
        (sender as? Event).map(responder.scrollWheel(with:))
    }
    /// `insertText(_:)`: the sender is the text.
    public static let insertText = Action("insertText(_:)") { responder, sender in
        sender.map(responder.insertText)
    }
}
