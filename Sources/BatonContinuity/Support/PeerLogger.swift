import Baton
import Logging

/// The continuity layer's log. Its lines carry what other devices sent — device names from
/// certificates, activity titles and types, DNS-SD instance names, remote error text — so each
/// line goes through `PrintableText.escaped` before it reaches the app's log backend: a peer
/// cannot put terminal escapes or bidirectional overrides into a log line. (Baton's own text is
/// printable, so it passes unchanged.)
struct PeerLogger: Sendable {
    private let logger: Logger

    init(label: String) { logger = Logger(label: label) }

    func debug(_ line: @autoclosure () -> String) { logger.debug("\(PrintableText.escaped(line()))") }
    func info(_ line: @autoclosure () -> String) { logger.info("\(PrintableText.escaped(line()))") }
    func notice(_ line: @autoclosure () -> String) { logger.notice("\(PrintableText.escaped(line()))") }
    func warning(_ line: @autoclosure () -> String) { logger.warning("\(PrintableText.escaped(line()))") }
    func error(_ line: @autoclosure () -> String) { logger.error("\(PrintableText.escaped(line()))") }
}
