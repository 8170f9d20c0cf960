import BatonLoop
import CGLib
import Foundation

/// Moving a `DBusConnection`'s bytes: nonblocking reads and writes of the stream's pollable
/// input and output on the loop thread, and the messages framed out of what was read.
extension DBusConnection {
    /// What one nonblocking read or write did.
    enum Transfer {
        case moved(Int)
        case wouldBlock
        /// The stream ended (the peer closed it) or failed; the connection is closed.
        case ended
    }

    // MARK: Writing

    /// Writes `message` with `serial` now, as far as the stream takes it; the rest waits for
    /// the stream to drain, in order. False if the message could not be encoded (logged).
    @discardableResult
    func write(_ message: OpaquePointer, serial: UInt32) -> Bool {
        g_dbus_message_set_serial(message, serial)
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard let blob = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, &error) else {
            log.error("a D-Bus message could not be encoded: \(GLibError(consuming: error!))")
            return false
        }
        defer { g_free(blob) }
        writeRaw(UnsafeRawBufferPointer(start: blob, count: Int(size)))
        return true
    }

    /// Emits the data signal `member` of `interface` at `path` with the body `(number, bytes)`
    /// (`DBusDataSignal`): encoded here, not by GLib, so the bytes are copied once, into the
    /// message, which is then written (and, when the peer's end is full, queued as it is). The
    /// names must be valid D-Bus names (the caller's declared ones); the message must be within
    /// `maximumMessageBody`, as the peer checks.
    package func emitData(_ path: String, _ interface: String, _ member: String, number: UInt32, bytes: Data) {
        guard !isClosed else { return }
        let size = DBusDataSignal.size(path: path, interface: interface, member: member, bytes: bytes.count)
        let serial = nextSerial()
        let message = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            bytes.withUnsafeBytes { bytes in
                DBusDataSignal.write(into: UnsafeMutableRawBufferPointer(buffer), serial: serial, path: path, interface: interface,
                                     member: member, number: number, bytes: bytes)
            }
            initialized = size
        }
        writeOwned(message)
    }

    /// Writes `message` after what already waits; what the stream does not take now is queued
    /// without a copy when nothing waited before it.
    private func writeOwned(_ message: [UInt8]) {
        guard !isClosed, unsentOutputBytes == 0, message.count > Self.readChunk / 2 else {
            return message.withUnsafeBytes { writeRaw($0) }
        }
        var written = 0
        writing: while written < message.count {
            let result = message.withUnsafeBytes { writeSome($0.baseAddress! + written, $0.count - written) }
            switch result {
            case .moved(let n): written += n
            case .wouldBlock: break writing
            case .ended: return
            }
        }
        guard written < message.count else { return }
        // Nothing waits (so `outputStart` is 0): the message is the next piece, `written` of it sent.
        output.append(message)
        outputStart = written
        queuedOutput += message.count
        if writeWatch == nil { writeWatch = makeWriteWatch() }
    }

    /// Writes `bytes` (a message, or an authentication line) after what already waits.
    package func writeRaw(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        var written = 0
        if unsentOutputBytes == 0 {
            writing: while written < bytes.count {
                switch writeSome(bytes.baseAddress! + written, bytes.count - written) {
                case .moved(let n): written += n
                case .wouldBlock: break writing
                case .ended: return
                }
            }
        }
        guard written < bytes.count else { return }
        // Small rests share a piece (so many small messages are few allocations); a large one is its own.
        if output.count > outputHead, output[output.count - 1].count + bytes.count - written <= Self.readChunk {
            output[output.count - 1].append(contentsOf: bytes[written...])
        } else {
            output.append(Array(bytes[written...]))
        }
        queuedOutput += bytes.count - written
        if unsentOutputBytes > Self.maximumQueuedOutput {
            return refuse("the other side does not read what is sent to it (\(unsentOutputBytes) bytes waiting)", as: .doesNotRead)
        }
        if writeWatch == nil { writeWatch = makeWriteWatch() }
    }

    /// One nonblocking write of up to `count` bytes (a TLS stream takes a record at a time).
    private func writeSome(_ bytes: UnsafeRawPointer, _ count: Int) -> Transfer {
        var error: UnsafeMutablePointer<GError>?
        let n = g_pollable_output_stream_write_nonblocking(outputStream, bytes, gsize(count), nil, &error)
        if n > 0 { return .moved(n) }
        if n == 0 || Self.wouldBlock(error) { return .wouldBlock }
        if let error { g_error_free(error) }
        close()  // the peer is gone; the read watch or this says so
        return .ended
    }

    func flush() -> Repetition {
        while !isClosed && outputHead < output.count {
            let result = output[outputHead].withUnsafeBytes { writeSome($0.baseAddress! + outputStart, $0.count - outputStart) }
            switch result {
            case .moved(let n):
                outputStart += n
                if outputStart == output[outputHead].count {
                    // A piece all sent is given back, so only unsent bytes take memory.
                    queuedOutput -= outputStart
                    output[outputHead] = []
                    outputHead += 1
                    outputStart = 0
                }
            case .wouldBlock:
                if outputHead >= 64 {
                    output.removeFirst(outputHead)
                    outputHead = 0
                }
                onOutputSent?()
                return .again
            case .ended: return .stop
            }
        }
        guard !isClosed else { return .stop }
        output = []
        outputHead = 0
        writeWatch = nil
        onOutputSent?()
        onOutputDrained?()
        return .stop
    }

    // MARK: Reading

    /// Reads what the stream has, up to `limit` bytes, straight into `input`.
    func readSome(upTo limit: Int = DBusConnection.readChunk) -> Transfer {
        guard !isClosed else { return .ended }
        if inputStart > 0 && inputStart == input.count {
            input.removeAll()
            inputStart = 0
        }
        let space = input.freeSpace(atLeast: limit)
        var error: UnsafeMutablePointer<GError>?
        let n = g_pollable_input_stream_read_nonblocking(inputStream, space.baseAddress, gsize(limit), nil, &error)
        if n > 0 {
            input.didFill(n)
            return .moved(n)
        }
        if n < 0 && Self.wouldBlock(error) { return .wouldBlock }
        if let error { g_error_free(error) }
        close()
        return .ended
    }

    /// Waits on the loop until the stream can be read (data, its end, or an error).
    func readable() async {
        await Readiness.stream(UnsafeMutableRawPointer(inputStream).assumingMemoryBound(to: GInputStream.self), cancellable: aborted,
                               askingFirst: base.isSocket)
    }

    /// The read watch: reads all the stream has, handling each whole message as it is complete,
    /// until a read would block or `bytesPerTurn` were read this turn. A TLS stream gives one
    /// record (at most 16 KiB) a read, so stopping at the first short read would cost a turn of
    /// the loop per record; the read that finds nothing is one cheap call, a turn is many.
    /// A socket's own stream (the agent's Unix socket) stops at its first short read instead:
    /// the socket had no more at that moment, and what comes after makes its descriptor readable
    /// again (the watch is level-triggered), so the read that would find nothing is saved.
    ///
    /// While reading is paused (this runs then only over a stream whose packets are handled only
    /// while it is read, `pauseReading()`), what is read is held untaken, up to
    /// `maximumPausedInput`; the watch stops there, until `resumeReading()`.
    func readAvailable() -> Repetition {
        var taken = 0
        while taken < Self.bytesPerTurn {
            let limit = readingPaused ? min(Self.readChunk, Self.maximumPausedInput - (input.count - inputStart)) : nextReadSize()
            guard limit > 0 else { return .stop }
            switch readSome(upTo: limit) {
            case .ended: return .stop
            case .wouldBlock:
                if inputStart == input.count { releaseInput() }
                return isClosed ? .stop : .again
            case .moved(let n):
                taken += n
                if readingPaused { continue }
                takeMessages()
                if isClosed || (readingPaused && !base.isHandledOnlyWhileRead) { return .stop }
                if n < limit, socketDescriptor != nil, !streamHoldsReadBytes {  // the socket's own stream, emptied
                    if inputStart == input.count { releaseInput() }
                    return .again
                }
            }
        }
        // A full turn's worth: let the loop's other sources run, and go on at the next turn.
        readSoon()
        return .again
    }

    /// Runs `readAvailable()` at the loop's next turn, whether or not the stream's watch fires
    /// (once, however often asked before it runs).
    func readSoon() {
        guard readAgain == nil else { return }
        readAgain = MainLoop.idle(priority: .default) { [weak self] in
            guard let self else { return }
            self.readAgain = nil
            _ = self.readAvailable()
        }
    }

    /// How much the next read asks for: the rest of the fixed header while it is not whole (so
    /// a message that starts a read has its sizes checked before any of its body is read, and a
    /// large one starts a buffer of its own), the rest of a large message (`directMessageSize`;
    /// it was given a buffer of its size, so it is read in place and its bytes can leave without
    /// a copy), otherwise `readChunk` (many small messages at once).
    private func nextReadSize() -> Int {
        let untaken = input.count - inputStart
        guard untaken >= DBusFraming.fixedHeaderSize else { return DBusFraming.fixedHeaderSize - untaken }
        let frame = input.withUnsafeBytes { framing.frame(UnsafeRawBufferPointer(rebasing: $0[inputStart...])) }
        if case .message(let size) = frame, size >= Self.directMessageSize, size > untaken { return size - untaken }
        return Self.readChunk
    }

    /// From this size on a message is read into a buffer of its own size.
    nonisolated static let directMessageSize = 16 * 1024

    /// Decodes and handles each whole message in `input`, checking each fixed header first.
    func takeMessages() {
        while processing, !isClosed {
            let untaken = input.count - inputStart
            let frame = input.withUnsafeBytes { framing.frame(UnsafeRawBufferPointer(rebasing: $0[inputStart...])) }
            let size: Int
            switch frame {
            case .needMore: return compactInput()
            case .refused(let reason, let oversized): return refuse(reason, as: oversized ? .oversizedMessage : .malformedMessage)
            case .message(let total): size = total
            }
            guard untaken >= size else { return prepareInput(for: size) }
            if takeDataSignal(size) || takeBytesReply(size) || takeBasicMessage(size) { continue }
            var error: UnsafeMutablePointer<GError>?
            let message = input.withUnsafeBytes { bytes in
                g_dbus_message_new_from_blob(UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: guchar.self)) + inputStart,
                                             gsize(size), G_DBUS_CAPABILITY_FLAGS_NONE, &error)
            }
            inputStart += size
            guard let message else {
                return refuse("a malformed D-Bus message of \(size) bytes (\(GLibError(consuming: error!).message))")
            }
            guard g_dbus_message_get_serial(message) != 0 else {
                g_object_unref(UnsafeMutableRawPointer(message))
                return refuse("a D-Bus message with serial 0")
            }
            handle(message)
            g_object_unref(UnsafeMutableRawPointer(message))
        }
    }

    /// Handles the whole message of `size` bytes at `inputStart` if it is a data signal
    /// (`DBusDataSignal`) that a subscription takes: its bytes go to the subscriptions with no
    /// GLib decoding, and without a copy when the message has a buffer of its own
    /// (`prepareInput(for:)`). False, and nothing taken, for any other message.
    private func takeDataSignal(_ size: Int) -> Bool {
        let start = inputStart
        let found = input.withUnsafeBytes { all -> (DBusDataSignal.Layout, [Subscription])? in
            let message = UnsafeRawBufferPointer(rebasing: all[start..<start + size])
            guard let layout = DBusDataSignal.layout(of: message) else { return nil }
            let matching = subscriptions.values.filter {
                $0.path.utf8.elementsEqual(message[layout.path]) && $0.interface.utf8.elementsEqual(message[layout.interface])
                    && $0.member.utf8.elementsEqual(message[layout.member])
            }
            return matching.isEmpty ? nil : (layout, matching)
        }
        guard let (layout, matching) = found else { return false }
        let count = layout.bytes.count
        let bytes: Data
        if start == 0, size == input.count, count >= Self.directMessageSize / 2, input.capacity <= 2 * count,
           let base = input.detach() {
            // The message's buffer becomes the bytes' storage, given back when the Data goes.
            let offset = layout.bytes.lowerBound
            bytes = Data(bytesNoCopy: base + offset, count: count, deallocator: .custom { pointer, _ in (pointer - offset).deallocate() })
            inputStart = 0
        } else {
            bytes = input.withUnsafeBytes { Data(UnsafeRawBufferPointer(rebasing: $0[(start + layout.bytes.lowerBound)...].prefix(count))) }
            inputStart += size
        }
        let arguments: [Variant] = [.uint32(layout.number), .bytes(bytes)]
        for subscription in matching { subscription.body(arguments) }
        return true
    }

    /// Handles the whole message of `size` bytes at `inputStart` if it is a bytes reply
    /// (`DBusBytesReply`) to a call waiting for `(ay)`: its bytes go to the call with no GLib
    /// decoding. A reply to no call waiting (late: timed out or cancelled) is dropped, as
    /// GLib's path drops it. False, and nothing taken, for any other message (a reply of
    /// another type goes to GLib's path, which fails the call with its type).
    private func takeBytesReply(_ size: Int) -> Bool {
        let start = inputStart
        let found = input.withUnsafeBytes { all -> (UInt32, Data?)? in
            let message = UnsafeRawBufferPointer(rebasing: all[start..<start + size])
            guard let layout = DBusBytesReply.layout(of: message) else { return nil }
            guard let call = pending[layout.replySerial] else { return (layout.replySerial, nil) }
            guard call.replyType == "(ay)" else { return nil }
            return (layout.replySerial, Data(UnsafeRawBufferPointer(rebasing: message[layout.bytes])))
        }
        guard let (serial, bytes) = found else { return false }
        inputStart += size
        if let bytes { finish(serial, .success([.bytes(bytes)])) }
        return true
    }

    /// Handles the whole message of `size` bytes at `inputStart` if it is a method call or return
    /// of basic types (`DBusBasicMessage`): its values go to the call's handler, or to the call
    /// waiting for them, with no GLib decoding. False, and nothing taken, for any other message.
    private func takeBasicMessage(_ size: Int) -> Bool {
        let start = inputStart
        let decoded = input.withUnsafeBytes { DBusBasicMessage.read(UnsafeRawBufferPointer(rebasing: $0[start..<start + size])) }
        guard let decoded else { return false }
        inputStart += size
        switch decoded.kind {
        case .call(let path, let interface, let member):
            dispatchCall(serial: decoded.serial, wantsReply: !decoded.noReplyExpected, path: path, interface: interface,
                         member: member, signature: decoded.signature, arguments: { decoded.arguments })
        case .reply(let replySerial):
            finishCall(replySerial, signature: decoded.signature, arguments: decoded.arguments)
        }
        return true
    }

    /// A message of `size` bytes is not all read yet: a large one (`directMessageSize`) gets
    /// a buffer of its own size, with what was read of it at the start, so the rest is read in
    /// place and its bytes can be handed on without a copy.
    private func prepareInput(for size: Int) {
        guard size >= Self.directMessageSize else { return compactInput() }
        if inputStart > 0 || input.capacity < size || input.capacity > 2 * size {
            input.restart(from: inputStart, capacity: size)
            inputStart = 0
        }
    }

    /// Moves what is not taken to the start of `input` once the taken part is large.
    private func compactInput() {
        if inputStart == input.count {
            input.removeAll()
            inputStart = 0
        } else if inputStart >= Self.readChunk {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    /// Gives back the memory of what was taken: an idle connection holds no buffer.
    private func releaseInput() {
        input.release()
        inputStart = 0
    }

    /// True (and the error freed) if `error` is `G_IO_ERROR_WOULD_BLOCK`.
    private static func wouldBlock(_ error: UnsafeMutablePointer<GError>?) -> Bool {
        guard let error, error.pointee.domain == g_io_error_quark(), error.pointee.code == gint(G_IO_ERROR_WOULD_BLOCK.rawValue) else {
            return false
        }
        g_error_free(error)
        return true
    }
}
