import BatonContinuity
import BatonLoop
import Foundation

/// Answers typed on standard input, one line per question, read through a GLib watch on the
/// loop (no thread), so `baton pair` can be answered from a terminal, over SSH, or by a
/// script. On a terminal, whatever was typed before a question is printed is discarded
/// (`tcflush`), so an impatient "y⏎" cannot answer a code nobody has seen yet. On a pipe (a
/// script, `make demo`) lines written ahead stay and answer the next questions in turn: a
/// script's answers are its own. The end of input, or a question cancelled (the other side
/// already ended the pairing), answers nil.
@MainActor
final class TerminalAnswers {
    static let shared = TerminalAnswers()

    /// The longest line kept; a longer one is cut there.
    static let maximumLine = 256
    private var buffer = Data()
    private var ended = false
    private var source: LoopSource?
    private var waiter: (id: UInt64, continuation: CheckedContinuation<String?, Never>)?
    /// Numbers the questions, so a cancelled one ends only itself.
    private var questionCount: UInt64 = 0

    /// Discards, on a terminal, what was typed and not yet read: call before printing a question.
    func discardTypedAhead() {
        guard isatty(0) != 0 else { return }
        tcflush(0, TCIFLUSH)
        buffer.removeAll()
    }

    /// The next line (without its newline), nil at the end of input or when the task is
    /// cancelled. On a terminal, lines typed before `discardTypedAhead` are gone.
    func line() async -> String? {
        guard !Task.isCancelled else { return nil }
        if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {  // read with an earlier line (a pipe)
            defer { buffer.removeSubrange(...newline) }
            return String(decoding: buffer[..<newline].prefix(Self.maximumLine), as: UTF8.self)
        }
        guard !ended else { return nil }
        questionCount += 1
        let id = questionCount
        return await withTaskCancellationHandler {
            await withLoopContinuation { continuation in
                waiter = (id, continuation)
                watch()
            }
        } onCancel: {
            Task { @MainActor in TerminalAnswers.shared.answer(nil, only: id) }
        }
    }

    /// Asks `question` (printed without a newline) and returns whether the answer is yes.
    func confirm(_ question: String) async -> Bool { await yesOrNo(question) ?? false }

    /// Asks `question` (printed without a newline): true for yes, false for any other line,
    /// nil at the end of input or when cancelled (no answer).
    func yesOrNo(_ question: String) async -> Bool? {
        discardTypedAhead()
        say(question, terminator: " ")
        let line = await self.line()
        if isatty(0) == 0 { say("") }  // no terminal echoed the answer's newline
        guard let answer = line?.trimmingCharacters(in: .whitespaces).lowercased() else { return nil }
        return answer == "y" || answer == "yes"
    }

    /// Asks `question` (printed without a newline) and returns the next line typed (a code),
    /// "" at the end of input or when cancelled.
    func typed(_ question: String) async -> String {
        discardTypedAhead()
        say(question, terminator: " ")
        let line = await self.line()
        if isatty(0) == 0 { say("") }
        return line ?? ""
    }

    private func watch() {
        guard source == nil else { return }
        source = MainLoop.whenReadable(0) { [weak self] in
            guard let self else { return .stop }
            var bytes = [UInt8](repeating: 0, count: 512)
            let count = read(0, &bytes, bytes.count)
            guard count > 0 else {
                self.ended = true
                self.source = nil
                self.answer(nil)
                return .stop
            }
            self.buffer.append(contentsOf: bytes[0..<count])
            if let newline = self.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: self.buffer[..<newline].prefix(Self.maximumLine), as: UTF8.self)
                self.buffer.removeSubrange(...newline)
                self.answer(line)
            } else if self.buffer.count > Self.maximumLine {
                self.buffer = Data(self.buffer.prefix(Self.maximumLine))
            }
            if self.waiter == nil {
                self.source = nil
                return .stop
            }
            return .again
        }
    }

    /// Answers the question waiting (only question `id`, if given) with `line`.
    private func answer(_ line: String?, only id: UInt64? = nil) {
        guard let waiter, id == nil || waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: line)
    }
}
