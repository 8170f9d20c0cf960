import Foundation

/// Lines read from standard input through a GLib watch on the loop (no thread), each handed to
/// `body` without its newline; at most 4 KiB are kept for an unfinished line. Ends at the end
/// of input, then calls `atEnd` (for a child process whose parent closed its input: the
/// examples, the benchmark's processes, the test probes), or at `stop()`.
@MainActor
public final class StandardInputLines {
    private var source: LoopSource?
    private var buffer = Data()

    /// Starts reading standard input on the main loop; `body` gets each line, `atEnd` runs once
    /// at the end of input. Keep the object: once it is released, reading stops.
    public init(atEnd: (@MainActor () -> Void)? = nil, _ body: @escaping @MainActor (String) -> Void) {
        source = MainLoop.whenReadable(0) { [weak self] in
            guard let self else { return .stop }
            var bytes = [UInt8](repeating: 0, count: 1024)
            let count = read(0, &bytes, bytes.count)
            guard count > 0 else {
                self.source = nil
                atEnd?()
                return .stop
            }
            self.buffer.append(contentsOf: bytes[0..<count])
            while let newline = self.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: self.buffer[self.buffer.startIndex..<newline], as: UTF8.self)
                self.buffer.removeSubrange(self.buffer.startIndex...newline)
                body(line)
            }
            if self.buffer.count > 4096 { self.buffer.removeAll() }
            return .again
        }
    }

    /// Stops reading: no more lines are handed on and `atEnd` is not called.
    public func stop() {
        source?.cancel()
        source = nil
    }
}
