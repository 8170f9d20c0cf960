import Baton
import Foundation

/// Where key presses come from: the terminal (one key at a time, no Enter needed), or a
/// script played through the main loop. Each press becomes a key-down `Event` sent through
/// `Application.sendEvent(_:)`, which delivers it to the key window's first responder, from
/// where it travels up the responder chain as AppKit's keys do.
@MainActor
final class KeySource {
    private enum Origin { case terminal, script([Character]) }
    private let origin: Origin
    private var watch: LoopSource?
    private var savedTerminal: termios?

    static func terminal() -> KeySource { KeySource(.terminal) }
    static func script(_ keys: String) -> KeySource { KeySource(.script(Array(keys))) }

    private init(_ origin: Origin) { self.origin = origin }

    func start() {
        switch origin {
        case .script(let keys):
            play(keys[...])
        case .terminal:
            enterCharacterMode()
            watch = MainLoop.whenReadable(STDIN_FILENO) {
                var byte: UInt8 = 0
                guard read(STDIN_FILENO, &byte, 1) == 1 else {
                    Application.shared.terminate(nil)  // end of input
                    return .stop
                }
                if byte != UInt8(ascii: "\n") { KeySource.send(Character(Unicode.Scalar(byte))) }
                return .again
            }
        }
    }

    func stop() {
        watch?.cancel()
        if var saved = savedTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }

    /// One key per loop turn, each after the previous one's effects have run.
    private func play(_ keys: ArraySlice<Character>) {
        guard let key = keys.first else { return }
        MainLoop.idle { [weak self] in
            KeySource.send(key)
            self?.play(keys.dropFirst())
        }
    }

    /// The key as AppKit's key-down event, sent to the application. A terminal's Backspace
    /// (DEL) is AppKit's `delete` character already; Tab and Escape are theirs too.
    private static func send(_ key: Character) {
        let app = Application.shared
        let window = app.keyWindow
        guard let event = Event.keyEvent(with: .keyDown, location: .zero, modifierFlags: [],
                                         timestamp: ProcessInfo.processInfo.systemUptime,
                                         windowNumber: window?.windowNumber ?? 0, context: nil,
                                         characters: String(key), charactersIgnoringModifiers: String(key),
                                         isARepeat: false, keyCode: 0) else { return }
        app.sendEvent(event)
    }

    private func enterCharacterMode() {
        guard isatty(STDIN_FILENO) != 0 else { return }
        var settings = termios()
        tcgetattr(STDIN_FILENO, &settings)
        savedTerminal = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }
}
