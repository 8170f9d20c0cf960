import Baton
import Foundation

/// Where key presses come from: the terminal (one key at a time, no Enter needed), or a
/// script played through the main loop.
@MainActor
final class KeySource {
    private enum Origin { case terminal, script([Character]) }
    private let origin: Origin
    private var watch: LoopSource?
    private var savedTerminal: termios?

    static func terminal() -> KeySource { KeySource(.terminal) }
    static func script(_ keys: String) -> KeySource { KeySource(.script(Array(keys))) }

    private init(_ origin: Origin) { self.origin = origin }

    func start(_ handle: @escaping @MainActor (Character) -> Void) {
        switch origin {
        case .script(let keys):
            play(keys[...], handle)
        case .terminal:
            enterCharacterMode()
            watch = MainLoop.whenReadable(STDIN_FILENO) {
                var byte: UInt8 = 0
                guard read(STDIN_FILENO, &byte, 1) == 1 else {
                    Application.shared.terminate(nil)  // end of input
                    return .stop
                }
                if byte != UInt8(ascii: "\n") { handle(Character(Unicode.Scalar(byte))) }
                return .again
            }
        }
    }

    func stop() {
        watch?.cancel()
        if var saved = savedTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }

    /// One key per loop turn, each after the previous one's effects have run.
    private func play(_ keys: ArraySlice<Character>, _ handle: @escaping @MainActor (Character) -> Void) {
        guard let key = keys.first else { return }
        MainLoop.idle { [weak self] in
            handle(key)
            self?.play(keys.dropFirst(), handle)
        }
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
