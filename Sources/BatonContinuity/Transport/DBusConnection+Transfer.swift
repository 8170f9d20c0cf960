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
        if writeWatch == nil { writeWatch = PollableWatch(output: outputStream) { [weak self] in self?.flush() ?? .stop } }
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

    private func flush() -> Repetition {
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

    /// One scratch buffer for every connection: reads happen on the loop thread, one at a time.
    private static let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: readChunk, alignment: 8)

    /// Reads what the stream has (up to `readChunk`) into `input`.
    func readSome() -> Transfer {
        guard !isClosed else { return .ended }
        var error: UnsafeMutablePointer<GError>?
        let n = g_pollable_input_stream_read_nonblocking(inputStream, Self.scratch.baseAddress, gsize(Self.scratch.count), nil, &error)
        if n > 0 {
            if inputStart > 0 && inputStart == input.count {
                input.removeAll(keepingCapacity: true)
                inputStart = 0
            }
            input.append(contentsOf: UnsafeRawBufferPointer(rebasing: Self.scratch[0..<n]))
            return .moved(n)
        }
        if n < 0 && Self.wouldBlock(error) { return .wouldBlock }
        if let error { g_error_free(error) }
        close()
        return .ended
    }

    /// Waits on the loop until the stream can be read (data, its end, or an error).
    func readable() async {
        await Readiness.stream(UnsafeMutableRawPointer(inputStream).assumingMemoryBound(to: GInputStream.self), cancellable: aborted)
    }

    /// The read watch: reads all the stream has, handling each whole message as it is complete,
    /// until a read would block or `bytesPerTurn` were read this turn. A TLS stream gives one
    /// record (at most 16 KiB) a read, so stopping at the first short read would cost a turn of
    /// the loop per record; the read that finds nothing is one cheap call, a turn is many.
    func readAvailable() -> Repetition {
        var taken = 0
        while taken < Self.bytesPerTurn {
            switch readSome() {
            case .ended: return .stop
            case .wouldBlock: return isClosed ? .stop : .again
            case .moved(let n):
                taken += n
                takeMessages()
                if isClosed || readingPaused { return .stop }
            }
        }
        // A full turn's worth: let the loop's other sources run, and go on at the next turn.
        if readAgain == nil {
            readAgain = MainLoop.idle(priority: .default) { [weak self] in
                guard let self else { return }
                self.readAgain = nil
                _ = self.readAvailable()
            }
        }
        return .again
    }

    /// Decodes and handles each whole message in `input`, checking each fixed header first.
    func takeMessages() {
        while processing, !isClosed {
            let frame = input.withUnsafeBytes { framing.frame(UnsafeRawBufferPointer(rebasing: $0[inputStart...])) }
            let size: Int
            switch frame {
            case .needMore: return compactInput()
            case .refused(let reason, let oversized): return refuse(reason, as: oversized ? .oversizedMessage : .malformedMessage)
            case .message(let total): size = total
            }
            guard input.count - inputStart >= size else { return compactInput() }
            var error: UnsafeMutablePointer<GError>?
            let message = input.withUnsafeMutableBytes { bytes in
                g_dbus_message_new_from_blob(bytes.baseAddress!.assumingMemoryBound(to: guchar.self) + inputStart, gsize(size),
                                             G_DBUS_CAPABILITY_FLAGS_NONE, &error)
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

    /// Gives back the memory of what was taken: an idle connection holds no buffer.
    private func compactInput() {
        if inputStart == input.count {
            input = []
            inputStart = 0
        } else if inputStart >= Self.readChunk {
            input.removeFirst(inputStart)
            inputStart = 0
        }
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
