import Foundation

/// An input event: a key or a mouse event (AppKit's `NSEvent`).
///
/// Events are values: made by a toolkit (BatonGtk makes them from GTK input), by a terminal
/// front end, or by your own code with AppKit's factory methods
/// (`keyEvent(with:location:modifierFlags:timestamp:windowNumber:context:characters:charactersIgnoringModifiers:isARepeat:keyCode:)`,
/// `mouseEvent(with:location:modifierFlags:timestamp:windowNumber:context:eventNumber:clickCount:pressure:)`),
/// and delivered with `Application.sendEvent(_:)` or `Window.sendEvent(_:)`, which route them
/// through the responder chain as AppKit does.
///
/// An event names its window by number (`windowNumber`, AppKit's rule); `window` finds it among
/// the application's windows. Locations are in the window's base coordinate system, whose
/// origin is the bottom-left corner, y growing upwards (AppKit's), unless a view says it is
/// flipped.
public final class Event: Sendable, CustomStringConvertible {
    /// The kind of an event (`NSEvent.EventType`).
    public enum EventType: UInt, Sendable {
        /// The left button went down.
        case leftMouseDown = 1
        /// The left button went up.
        case leftMouseUp = 2
        /// The right button went down.
        case rightMouseDown = 3
        /// The right button went up.
        case rightMouseUp = 4
        /// The mouse moved with no button down.
        case mouseMoved = 5
        /// The mouse moved with the left button down.
        case leftMouseDragged = 6
        /// The mouse moved with the right button down.
        case rightMouseDragged = 7
        /// The mouse entered a view.
        case mouseEntered = 8
        /// The mouse left a view.
        case mouseExited = 9
        /// A key went down.
        case keyDown = 10
        /// A key went up.
        case keyUp = 11
        /// A modifier key went down or up.
        case flagsChanged = 12
        /// The scroll wheel turned.
        case scrollWheel = 22
        /// Another button went down.
        case otherMouseDown = 25
        /// Another button went up.
        case otherMouseUp = 26
        /// The mouse moved with another button down.
        case otherMouseDragged = 27
    }

    /// The modifier keys held during an event (`NSEvent.ModifierFlags`), with AppKit's bit values.
    public struct ModifierFlags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Caps Lock is on.
        public static let capsLock = ModifierFlags(rawValue: 1 << 16)
        /// A Shift key is held.
        public static let shift = ModifierFlags(rawValue: 1 << 17)
        /// A Control key is held.
        public static let control = ModifierFlags(rawValue: 1 << 18)
        /// An Option (Alt) key is held.
        public static let option = ModifierFlags(rawValue: 1 << 19)
        /// A Command key is held: on Linux, the key a toolkit maps to it (BatonGtk maps Control,
        /// as GTK's `<Primary>` does; see the porting guide).
        public static let command = ModifierFlags(rawValue: 1 << 20)
        /// The key is on the numeric keypad.
        public static let numericPad = ModifierFlags(rawValue: 1 << 21)
        /// The Help key is held.
        public static let help = ModifierFlags(rawValue: 1 << 22)
        /// A function key is held (arrows and the like, as AppKit sets it).
        public static let function = ModifierFlags(rawValue: 1 << 23)
        /// The flags that do not depend on the keyboard: mask an event's flags with it before
        /// comparing them (`deviceIndependentFlagsMask`).
        public static let deviceIndependentFlagsMask = ModifierFlags(rawValue: 0xffff_0000)
    }

    /// The kind of event (`type`).
    public let type: EventType
    /// Where the event happened, in the window's base coordinates (`locationInWindow`).
    public let locationInWindow: CGPoint
    /// The modifier keys held (`modifierFlags`).
    public let modifierFlags: ModifierFlags
    /// When the event happened, in seconds since system start-up (`timestamp`).
    public let timestamp: TimeInterval
    /// The number of the window the event belongs to; 0 for none (`windowNumber`).
    public let windowNumber: Int
    private let keyCharacters: String?
    private let keyCharactersIgnoringModifiers: String?
    private let keyRepeat: Bool
    private let hardwareKeyCode: UInt16
    private let mouseClickCount: Int
    private let mouseButtonNumber: Int
    /// The event's sequence number (`eventNumber`).
    public let eventNumber: Int
    /// The pressure of a mouse event, 0 to 1 (`pressure`).
    public let pressure: Float
    /// The horizontal scroll of a `scrollWheel` event, or the move of a mouse event (`deltaX`).
    public let deltaX: CGFloat
    /// The vertical scroll of a `scrollWheel` event, or the move of a mouse event (`deltaY`).
    public let deltaY: CGFloat

    private init(type: EventType, location: CGPoint, modifierFlags: ModifierFlags, timestamp: TimeInterval,
                 windowNumber: Int, characters: String? = nil, charactersIgnoringModifiers: String? = nil,
                 isARepeat: Bool = false, keyCode: UInt16 = 0, eventNumber: Int = 0, clickCount: Int = 0,
                 buttonNumber: Int = 0, pressure: Float = 0, deltaX: CGFloat = 0, deltaY: CGFloat = 0) {
        self.type = type
        self.locationInWindow = location
        self.modifierFlags = modifierFlags
        self.timestamp = timestamp
        self.windowNumber = windowNumber
        self.keyCharacters = characters
        self.keyCharactersIgnoringModifiers = charactersIgnoringModifiers
        self.keyRepeat = isARepeat
        self.hardwareKeyCode = keyCode
        self.eventNumber = eventNumber
        self.mouseClickCount = clickCount
        self.mouseButtonNumber = buttonNumber
        self.pressure = pressure
        self.deltaX = deltaX
        self.deltaY = deltaY
    }

    /// Whether `type` is a key event (`keyDown`, `keyUp`, `flagsChanged`).
    var isKeyEvent: Bool { type == .keyDown || type == .keyUp || type == .flagsChanged }

    /// The characters the key produced (`characters`); nil for an event that is not a key event
    /// (AppKit raises an exception there; Baton returns nil).
    public var characters: String? { isKeyEvent ? keyCharacters : nil }
    /// The characters the key would produce with no modifier but Shift
    /// (`charactersIgnoringModifiers`); nil for an event that is not a key event.
    public var charactersIgnoringModifiers: String? { isKeyEvent ? keyCharactersIgnoringModifiers : nil }
    /// Whether a key event is the key repeating while held (`isARepeat`).
    public var isARepeat: Bool { keyRepeat }
    /// The hardware code of the key (`keyCode`): on Linux, the toolkit's keycode.
    public var keyCode: UInt16 { hardwareKeyCode }
    /// How many clicks in quick succession this mouse event ends (`clickCount`); 0 for others.
    public var clickCount: Int { mouseClickCount }
    /// The mouse button: 0 left, 1 right, 2 and up others (`buttonNumber`).
    public var buttonNumber: Int { mouseButtonNumber }

    /// The window the event belongs to (`window`): the application's window numbered
    /// `windowNumber`, or nil.
    @MainActor public var window: Window? { Application.shared.window(withWindowNumber: windowNumber) }

    /// A key event (AppKit's `keyEvent(with:location:modifierFlags:timestamp:windowNumber:context:characters:charactersIgnoringModifiers:isARepeat:keyCode:)`);
    /// nil when `type` is not `keyDown`, `keyUp` or `flagsChanged`, as in AppKit. `context` is
    /// unused (pass nil), as in AppKit.
    public class func keyEvent(with type: EventType, location: CGPoint, modifierFlags flags: ModifierFlags,
                               timestamp time: TimeInterval, windowNumber wNum: Int, context unusedPassNil: GraphicsContext?,
                               characters keys: String, charactersIgnoringModifiers ukeys: String,
                               isARepeat flag: Bool, keyCode code: UInt16) -> Event? {
        guard type == .keyDown || type == .keyUp || type == .flagsChanged else { return nil }
        return Event(type: type, location: location, modifierFlags: flags, timestamp: time, windowNumber: wNum,
                     characters: keys, charactersIgnoringModifiers: ukeys, isARepeat: flag, keyCode: code)
    }

    /// A mouse event (AppKit's `mouseEvent(with:location:modifierFlags:timestamp:windowNumber:context:eventNumber:clickCount:pressure:)`);
    /// nil when `type` is not a mouse event, as in AppKit. The button is the one `type` names
    /// (left 0, right 1, other 2). `context` is unused (pass nil).
    public class func mouseEvent(with type: EventType, location: CGPoint, modifierFlags flags: ModifierFlags,
                                 timestamp time: TimeInterval, windowNumber wNum: Int, context unusedPassNil: GraphicsContext?,
                                 eventNumber eNum: Int, clickCount cNum: Int, pressure: Float) -> Event? {
        let button: Int
        switch type {
        case .leftMouseDown, .leftMouseUp, .leftMouseDragged, .mouseMoved, .mouseEntered, .mouseExited: button = 0
        case .rightMouseDown, .rightMouseUp, .rightMouseDragged: button = 1
        case .otherMouseDown, .otherMouseUp, .otherMouseDragged: button = 2
        default: return nil
        }
        return Event(type: type, location: location, modifierFlags: flags, timestamp: time, windowNumber: wNum,
                     eventNumber: eNum, clickCount: cNum, buttonNumber: button, pressure: pressure)
    }

    /// A scroll-wheel event of `deltaX`/`deltaY` (AppKit makes these through Quartz; Baton
    /// gives a factory so that a toolkit or a test can).
    public class func scrollEvent(location: CGPoint, modifierFlags flags: ModifierFlags, timestamp time: TimeInterval,
                                  windowNumber wNum: Int, deltaX: CGFloat, deltaY: CGFloat) -> Event {
        Event(type: .scrollWheel, location: location, modifierFlags: flags, timestamp: time, windowNumber: wNum,
              deltaX: deltaX, deltaY: deltaY)
    }

    /// The mouse button number of a mouse event with another button than left or right (for a
    /// toolkit that knows it): `otherMouseDown`/`Up`/`Dragged` with `buttonNumber`.
    public class func otherMouseEvent(with type: EventType, location: CGPoint, modifierFlags flags: ModifierFlags,
                                      timestamp time: TimeInterval, windowNumber wNum: Int, clickCount cNum: Int,
                                      buttonNumber: Int) -> Event? {
        guard type == .otherMouseDown || type == .otherMouseUp || type == .otherMouseDragged else { return nil }
        return Event(type: type, location: location, modifierFlags: flags, timestamp: time, windowNumber: wNum,
                     clickCount: cNum, buttonNumber: buttonNumber)
    }

    /// The type, where, and the key's characters or the click count.
    public var description: String {
        var text = "Event(\(type), at (\(locationInWindow.x), \(locationInWindow.y)), window \(windowNumber)"
        if isKeyEvent { text += ", characters \(String(reflecting: keyCharacters ?? "")), keyCode \(keyCode)" }
        if clickCount > 0 { text += ", clickCount \(clickCount)" }
        return text + ")"
    }
}

/// A drawing context (AppKit's `NSGraphicsContext`). Baton draws nothing itself; the type exists
/// so that `Event`'s factory methods keep AppKit's `context:` argument, which AppKit also ignores.
public final class GraphicsContext: Sendable {
    private init() {}
}
