import Baton
import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// A continuation stream over a local connection to the agent (a `GSocketConnection` on its
/// Unix socket): the app's end of a stream the agent relays to the other device, and the
/// agent's end toward the app. Reads and writes run on the caller's actor and touch the socket
/// on the main actor, so a transfer driven from the main actor stays on the loop thread.
///
/// After the connection's `S` and token, bytes go in frames: a 4-byte big-endian length (at
/// most `piece`) and that many bytes; a frame of length 0 ends the writer's side
/// (`finishWriting()`). A connection that ends without it (the relay's other side broke, the
/// writer died) is an error for the reader, never a stream that ended early but looked whole.
/// A length with its top bit set (`failureFlag`) is a failure frame with no bytes: the stream
/// failed with the Handoff code in the low bits (the other device refused an open the app had
/// already written to, `fail(reporting:)`); the reader's reads throw that code.
///
/// Reads go into a buffer of `bufferSize` bytes, one socket read for as many frames (headers
/// and payloads) as have arrived, and a read returns the payloads of all the whole or partial
/// frames buffered, up to its `maxLength`. A write sends its frames, headers included, in one
/// socket write of up to `batch` frames.
///
/// The socket is read and written without blocking, at once. A read that finds nothing waits on
/// the connection's one read watch, made by the first such read and kept while bytes come (it
/// reads what arrives into the buffer, whether or not a read waits, while there is room); a
/// write the socket does not take whole waits on a write watch until it is. GLib writes the
/// loop's wake-up eventfd each time a source adds or removes a polled fd, so a GIO async call
/// per wait cost two of those writes and a turn of the loop on every hop of a relayed stream;
/// the watches are `FDWatch`es of the socket's fd, which stay in the poll set through their
/// dispatches too (a GIO pollable source leaves it around each one).
final class LocalStream: ContinuationStreamChannel, @unchecked Sendable {
    /// The `GSocketConnection *` (a reference held until `deinit`).
    let connection: OpaquePointer
    /// The largest frame.
    static let piece = 64 * 1024
    /// The read buffer's size, and how many whole frames one socket write carries at most.
    static let bufferSize = 256 * 1024
    static let batch = 4
    /// The bit of a frame's length that makes it a failure frame (the code in the low bits).
    static let failureFlag = 0x8000_0000

    /// Takes a reference of its own to `connection`.
    init(_ connection: OpaquePointer) {
        self.connection = connection
        g_object_ref(UnsafeMutableRawPointer(connection))
    }

    deinit {
        // The watches go first (their own deinit, on the loop), then the connection.
        readWatch = nil
        writeWatch = nil
        g_object_unref(UnsafeMutableRawPointer(connection))
        readBuffer?.deallocate()
        writeBuffer?.deallocate()
    }

    private var stream: UnsafeMutablePointer<GIOStream> { UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self) }

    /// The socket's fd, which the watches poll (`FDWatch`: no extra turn of the loop per
    /// dispatch, as a GIO pollable source, which may not recurse, costs).
    private var socketFD: Int32 { g_socket_get_fd(g_socket_connection_get_socket(UnsafeMutablePointer(connection))) }

    // The reading side, touched only on the main actor, one reader at a time: bytes buffered
    // (`readStart..<readEnd`), bytes left in the frame being read, whether the end frame came.
    private var readBuffer: UnsafeMutableRawPointer?
    private var readStart = 0, readEnd = 0
    private var frameLeft = 0
    private var ended = false
    /// The failure a failure frame reported: every read after it throws it.
    private var failure: CocoaError?
    /// Whether a socket write is in flight, and whether a failure frame is going out (a
    /// `close()` meanwhile waits for it: `fail(reporting:)` closes once it has gone).
    private var writing = false
    private var reporting = false
    // The writing side's buffer (frames with their headers), one writer at a time.
    private var writeBuffer: UnsafeMutableRawPointer?
    /// The connection's read watch (nil until a read first waits, and while the buffer is full
    /// or the socket has ended), the read waiting on it, and how the socket ended or failed if
    /// it did while no read waited (thrown once the buffered bytes are read).
    private var readWatch: FDWatch?
    private var readWaiter: CheckedContinuation<Void, any Error>?
    private var readFailure: (any Error)?
    /// The watch of a write the socket did not take whole, and that write.
    private var writeWatch: FDWatch?
    private var writeWaiter: CheckedContinuation<Void, any Error>?
    /// Read watches made: one for a connection's life unless its buffer filled up or it ended
    /// (tests count them).
    private(set) var readWatchesMade = 0

    nonisolated(nonsending) func read(maxLength: Int) async throws -> Data {
        try await receive(maxLength: max(1, maxLength))
    }

    /// The payload bytes buffered, up to `maxLength`, across frames; waits for the socket only
    /// when none are.
    @MainActor
    private func receive(maxLength: Int) async throws -> Data {
        if let failure { throw failure }
        var result = Data()
        while !ended && result.count < maxLength {
            if frameLeft == 0 {
                guard readEnd - readStart >= 4 else {
                    if !result.isEmpty { break }
                    try await fillOrFail()
                    continue
                }
                let header = readBuffer! + readStart
                let length = (0..<4).reduce(0) { $0 << 8 | Int(header.load(fromByteOffset: $1, as: UInt8.self)) }
                if length & Self.failureFlag != 0 {
                    if !result.isEmpty { break }  // what came before it first; the next read throws
                    readStart += 4
                    let failure = Self.reported(length & ~Self.failureFlag)
                    self.failure = failure
                    throw failure
                }
                guard length <= Self.piece else {
                    throw CocoaError.handoff(.userActivityHandoffFailed, "a stream frame of \(length) bytes, over \(Self.piece)")
                }
                readStart += 4
                if length == 0 { ended = true } else { frameLeft = length }
                continue
            }
            let available = min(frameLeft, readEnd - readStart, maxLength - result.count)
            guard available > 0 else {
                if !result.isEmpty { break }
                try await fillOrFail()
                continue
            }
            // Room for all that is buffered at once, not grown (and copied) frame by frame.
            if result.isEmpty { result.reserveCapacity(min(maxLength, readEnd - readStart)) }
            result.append(readBuffer!.assumingMemoryBound(to: UInt8.self) + readStart, count: available)
            readStart += available
            frameLeft -= available
        }
        return result
    }

    /// `fill()`, whose failure is the one `failLocally(_:)` gave if the stream failed meanwhile.
    @MainActor
    private func fillOrFail() async throws {
        do { try await fill() } catch { throw failure ?? error }
    }

    /// The stream failed before the agent could say so (the app's `OpenStreamsPipelined` call
    /// failed): waiting and later reads and writes throw `error`, and the connection is closed.
    @MainActor
    func failLocally(_ error: CocoaError) {
        guard failure == nil else { return }
        failure = error
        shutAndClose()
    }

    /// Reads what has arrived on the socket (waiting for some, on the read watch) behind the
    /// bytes still buffered, which move to the front first; the end of the connection here is a
    /// broken stream.
    @MainActor
    private func fill() async throws {
        if let readFailure { throw readFailure }
        let before = readEnd
        // What has arrived already is taken now: GIO would hand it over a turn of the loop later.
        if try readAvailable(compacting: true) { return }
        if readWatch == nil {
            readWatchesMade += 1
            readWatch = FDWatch(readable: socketFD) { [weak self] in
                self?.socketReadable() ?? .stop
            }
        }
        try await withThrowingLoopContinuation(onCancel: { [self] in
            Task { @MainActor in self.wakeReader(throwing: CancellationError()) }
        }) { (continuation: CheckedContinuation<Void, any Error>) in
            // The watch may have read while the task came to the loop.
            if readEnd != before || readFailure != nil { return continuation.resume() }
            readWaiter = continuation
        }
    }

    /// The read watch's callback: what the socket holds goes into the buffer and a waiting read
    /// goes on. The watch goes when the buffer is full (made again by the read that empties
    /// it) or the socket has ended or failed.
    @MainActor
    private func socketReadable() -> Repetition {
        do {
            if try !readAvailable(compacting: readEnd == Self.bufferSize) {
                guard readEnd == Self.bufferSize else { return .again }  // readable no more
                readWatch = nil
                return .stop
            }
        } catch {
            readFailure = error
            readWatch = nil
            wakeReader()
            return .stop
        }
        wakeReader()
        return .again
    }

    /// One nonblocking read into the buffer behind what it holds (moved to the front first with
    /// `compacting`): whether bytes came (false if none were there, or no room); throws at the
    /// end of the connection (`broken`) or on an error.
    @MainActor
    private func readAvailable(compacting: Bool) throws -> Bool {
        let buffer = readBuffer ?? UnsafeMutableRawPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
        readBuffer = buffer
        if compacting, readStart > 0 {
            buffer.copyMemory(from: buffer + readStart, byteCount: readEnd - readStart)
            (readStart, readEnd) = (0, readEnd - readStart)
        }
        let count = Self.bufferSize - readEnd
        guard count > 0 else { return false }
        let input = OpaquePointer(g_io_stream_get_input_stream(stream))
        guard let n = try Self.transferNow({ error in
            g_pollable_input_stream_read_nonblocking(input, buffer + readEnd, gsize(count), nil, error)
        }) else { return false }
        guard n > 0 else { throw Self.broken }
        readEnd += n
        return true
    }

    /// Resumes the read waiting on the watch, if one is (with `error`: it throws that).
    @MainActor
    private func wakeReader(throwing error: (any Error)? = nil) {
        let waiter = readWaiter
        readWaiter = nil
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume() }
    }

    /// The error a failure frame with `code` reports: that Handoff code, or
    /// `.userActivityHandoffFailed` for a code that is none.
    private static func reported(_ code: Int) -> CocoaError {
        let reported = CocoaError.Code(rawValue: code)
        return CocoaError.handoff(HandoffFailure.codes.contains(reported) ? reported : .userActivityHandoffFailed,
                                  "the other device did not open the continuation streams")
    }

    /// Tells the reader that the stream failed with `error`'s Handoff code (a failure frame),
    /// then closes the connection. Used by the relay when the device's stream fails with a
    /// Handoff error (an open the device refused); if a write is in flight it only closes.
    @MainActor
    func fail(reporting error: CocoaError) async {
        guard !writing, !reporting else { return }
        reporting = true
        let code = HandoffFailure.codes.contains(error.code) ? error.code : .userActivityHandoffFailed
        let frame = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 4)
        defer { frame.deallocate() }  // GIO reads it until the write finishes, which the await spans
        Self.putHeader(Self.failureFlag | code.rawValue, at: frame)
        try? await writeAll(frame, count: 4)
        reporting = false
        shutAndClose()
    }

    /// What a reader gets when the connection ends before the end frame.
    private static var broken: CocoaError {
        CocoaError.handoff(.userActivityConnectionUnavailable, "the stream through the agent broke before its end")
    }

    nonisolated(nonsending) func write(_ data: Data) async throws {
        try await send(data)
    }

    /// `data` in frames of at most `piece` bytes, `batch` frames to a socket write.
    @MainActor
    private func send(_ data: Data) async throws {
        if let failure { throw failure }
        let buffer = writeBuffer ?? UnsafeMutableRawPointer.allocate(byteCount: Self.batch * (Self.piece + 4), alignment: 16)
        writeBuffer = buffer
        var offset = data.startIndex
        while offset < data.endIndex {
            var filled = 0
            for _ in 0..<Self.batch where offset < data.endIndex {
                let end = min(offset + Self.piece, data.endIndex)
                Self.putHeader(end - offset, at: buffer + filled)
                data.copyBytes(to: (buffer + filled + 4).assumingMemoryBound(to: UInt8.self), from: offset..<end)
                filled += 4 + end - offset
                offset = end
            }
            do { try await writeAll(buffer, count: filled) } catch { throw failure ?? error }
        }
    }

    private static func putHeader(_ length: Int, at pointer: UnsafeMutableRawPointer) {
        for index in 0..<4 { pointer.storeBytes(of: UInt8(truncatingIfNeeded: length >> (24 - 8 * index)), toByteOffset: index, as: UInt8.self) }
    }

    /// Writes `data` as it is, unframed (the connection's `S` and token).
    @MainActor
    func writeRaw(_ data: Data) async throws {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        defer { bytes.deallocate() }  // GIO reads it until the write finishes, which the await spans
        data.copyBytes(to: bytes.assumingMemoryBound(to: UInt8.self), count: data.count)
        try await writeAll(bytes, count: data.count)
    }

    /// All `count` bytes at `bytes` (`g_output_stream_write_all_async`); the caller keeps them
    /// alive until it returns.
    @MainActor
    private func writeAll(_ bytes: UnsafeMutableRawPointer, count: Int) async throws {
        writing = true
        defer { writing = false }
        let output = SendableHandle(OpaquePointer(g_io_stream_get_output_stream(stream)))
        // As much as the socket takes now, written now (the usual case: all of it); GIO's
        // asynchronous write, which finishes a turn of the loop later at the soonest, only
        // for the rest.
        var written = 0
        while written < count, let n = try Self.transferNow({ error in
            g_pollable_output_stream_write_nonblocking(output.pointer, bytes + written, gsize(count - written), nil, error)
        }), n > 0 {
            written += n
        }
        guard written < count else { return }
        // The rest as the socket takes it, on a write watch for this write.
        defer { writeWatch = nil }
        try await withThrowingLoopContinuation(onCancel: { [self] in
            Task { @MainActor in self.wakeWriter(throwing: CancellationError()) }
        }) { (continuation: CheckedContinuation<Void, any Error>) in
            writeWaiter = continuation
            writeWatch = FDWatch(writable: socketFD) { [weak self] in
                guard let self else { return .stop }
                do {
                    while written < count, let n = try Self.transferNow({ error in
                        g_pollable_output_stream_write_nonblocking(output.pointer, bytes + written, gsize(count - written), nil, error)
                    }), n > 0 {
                        written += n
                    }
                } catch {
                    self.wakeWriter(throwing: error)
                    return .stop
                }
                guard written == count else { return .again }
                self.wakeWriter()
                return .stop
            }
        }
    }

    /// Resumes the write waiting on the write watch, if one is (with `error`: it throws that).
    @MainActor
    private func wakeWriter(throwing error: (any Error)? = nil) {
        let waiter = writeWaiter
        writeWaiter = nil
        if let error { waiter?.resume(throwing: error) } else { waiter?.resume() }
    }

    /// One nonblocking read or write (`transfer`, given where to put its error): the bytes it
    /// moved (0 at the end of a read), or nil if it would block.
    private static func transferNow(_ transfer: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> gssize) throws -> Int? {
        var error: UnsafeMutablePointer<GError>?
        let n = transfer(&error)
        if n >= 0 { return Int(n) }
        guard let error else { return nil }
        if error.pointee.domain == g_io_error_quark(), error.pointee.code == gint(G_IO_ERROR_WOULD_BLOCK.rawValue) {
            g_error_free(error)
            return nil
        }
        throw GLibError(consuming: error)
    }

    nonisolated(nonsending) func finishWriting() async throws {
        try await end()
    }

    /// The end frame, then the socket's writing side shut down.
    @MainActor
    private func end() async throws {
        if let failure { throw failure }
        do { try await writeRaw(Data(count: 4)) } catch { throw failure ?? error }
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        var error: UnsafeMutablePointer<GError>?
        guard g_socket_shutdown(socket, 0, 1, &error) != 0 else { throw GLibError(consuming: error!) }
    }

    func close() {
        // A failure frame going out closes the connection once it has gone.
        if Thread.isMainThread, reporting { return }
        shutAndClose()
    }

    private func shutAndClose() {
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        g_socket_shutdown(socket, 1, 1, nil)
        // Off the loop, the watches see the shutdown and end with the read or write they serve.
        if Thread.isMainThread { MainActor.assumeIsolated { dropWatches() } }
        g_socket_close(socket, nil)
    }

    /// The watches go before the socket closes (its fd could be another's by their next poll);
    /// a read or write waiting on them fails as a broken stream.
    @MainActor
    private func dropWatches() {
        readWatch = nil
        writeWatch = nil
        if readFailure == nil { readFailure = Self.broken }
        wakeReader()
        wakeWriter(throwing: Self.broken)
    }
}
