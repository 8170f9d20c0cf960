import Baton
import BatonLoop
import Foundation

/// One continuation stream carried on a device link (`LinkStreams`): the byte channel under a
/// pair of continuation streams (handoff-programming-guide, "Using Continuation Streams").
///
/// Bytes travel as `StreamData` signals of at most `LinkStreams.chunk` bytes, under
/// credit-based flow control: a writer has at most `LinkStreams.window` bytes the reader has
/// not given back (`StreamCredit`, sent as the app reads), so a reader that does not read holds
/// at most one window, and a write waits for credit. `finishWriting()` sends `StreamEnd` (the
/// reader reads to its end, and gives all its credit back at once) and returns once that
/// credit is back: the peer has everything written. `close()` sends `StreamReset` (the reader
/// reads what arrived, then the end; its writes fail), `abort()` an aborting one (its reads
/// fail too).
///
/// A write also waits while the link's queue holds `LinkStreams.queuedOutputLimit` bytes the
/// peer's socket has not taken, so the loop never encodes far ahead of the socket.
///
/// On the continuing side the stream is written before the peer has answered `OpenStreams`
/// (`LinkStreams.open`): if the open is refused, reads and writes throw the Handoff error of the
/// refusal, as a stream of a refused connection does.
///
/// Every wait is bounded by `idleTimeout`: a read that gets nothing, or a write that gets no
/// credit or room, for that long resets the stream (aborting) and fails with
/// `TransportError.idle`; the peer's reads and writes then fail too. When the link goes, reads
/// and writes fail with `TransportError.closed` at once (a stream whose peer had finished
/// writing is still read to its end).
///
/// Its state is touched only on the main actor (the loop thread); reads and writes run on the
/// caller's actor and hop there, so a transfer driven from the main actor never leaves the loop.
final class LinkStream: ContinuationStreamChannel, @unchecked Sendable {
    let id: UInt32
    let idleTimeout: Duration
    private let streams: LinkStreams

    // Reading: chunks received and not yet read (`head` bytes of the first already taken).
    private var chunks: [Data] = []
    private var head = 0
    private(set) var buffered = 0
    /// Bytes received, and bytes given back as credit: their difference is what the peer has
    /// sent past the credit this side gave (at most one window from an honest peer).
    private var receivedTotal = 0
    private var creditedTotal = 0
    private var ended = false
    // Writing: bytes the peer has room for, whether any were sent, and whether this side
    // finished writing.
    private var credit = LinkStreams.window
    private var sentAny = false
    private(set) var finishedWriting = false
    /// The link went after the peer had finished writing (`linkClosed()`).
    private var linkGone = false
    /// Why the stream cannot be used any more (nil while it can): a `TransportError`, or the
    /// Handoff error of an open the peer refused (`openFailed`).
    private var failure: (any Error)?
    /// The task waiting for bytes (a read) or credit (a write): one reader, one writer.
    private var reader: CheckedContinuation<Void, any Error>?
    private var writer: CheckedContinuation<Void, any Error>?

    init(id: UInt32, on streams: LinkStreams, idleTimeout: Duration) {
        self.id = id
        self.streams = streams
        self.idleTimeout = idleTimeout
    }

    /// Whether the stream is over on the link: failed or reset, or ended both ways (the end
    /// sent and acknowledged, the peer's received), whatever the app has still to read. Both sides reach it
    /// in the same order of messages, so they agree on which streams are open
    /// (`LinkStreams.forget`).
    @MainActor var isDone: Bool { failure != nil || (ended && finishedWriting && credit == LinkStreams.window) }

    // MARK: The channel

    nonisolated(nonsending) func read(maxLength: Int) async throws -> Data {
        try await receive(maxLength: max(1, maxLength))
    }

    nonisolated(nonsending) func write(_ data: Data) async throws {
        try await send(data)
    }

    nonisolated(nonsending) func finishWriting() async throws {
        try await finish()
    }

    func close() { onLoop { $0.shut(aborted: false) } }

    func abort() { onLoop { $0.shut(aborted: true) } }

    // MARK: On the loop

    @MainActor
    private func receive(maxLength: Int) async throws -> Data {
        while buffered == 0 {
            if let failure { throw failure }
            if ended { return Data() }
            try await wait(reading: true) { $0.buffered > 0 || $0.ended }
        }
        var result = Data()
        while result.count < maxLength, let first = chunks.first {
            let take = min(first.count - head, maxLength - result.count)
            let start = first.startIndex + head
            if result.isEmpty && take == first.count - head && head == 0 {
                result = first
            } else {
                result.append(first[start..<start + take])
            }
            head += take
            if head == first.count {
                chunks.removeFirst()
                head = 0
            }
        }
        buffered -= result.count
        let owed = receivedTotal - buffered - creditedTotal
        if owed >= LinkStreams.creditBatch, failure == nil, !ended {
            creditedTotal += owed
            streams.emit(.streamCredit(stream: id, bytes: UInt32(owed)))
        }
        if isDone { streams.forget(self) }
        return result
    }

    @MainActor
    private func send(_ data: Data) async throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            if let failure { throw failure }
            guard !finishedWriting, !linkGone else { throw TransportError.closed }
            guard credit > 0, !streams.outputIsFull else {
                try await wait(reading: false) { $0.credit > 0 && !$0.streams.outputIsFull }
                continue
            }
            // The first message is small (one TLS record): the peer has its first bytes sooner.
            let end = min(offset + min(credit, sentAny ? LinkStreams.chunk : LinkStreams.firstChunk), data.endIndex)
            sentAny = true
            credit -= end - offset
            streams.emit(.streamData(stream: id, bytes: data[offset..<end]))  // a slice: not copied here
            offset = end
        }
        if let failure { throw failure }
    }

    @MainActor
    private func finish() async throws {
        if let failure { throw failure }
        if linkGone { throw TransportError.closed }
        guard !finishedWriting else { return }
        finishedWriting = true
        streams.emit(.streamEnd(stream: id))
        // Returns once the peer has everything written (it gives all its credit back on the
        // end): an app that exits right after does not lose the end of what it wrote.
        while credit < LinkStreams.window {
            if let failure { throw failure }
            try await wait(reading: false) { $0.credit == LinkStreams.window }
        }
        if isDone { streams.forget(self) }
    }

    /// Waits (at most `idleTimeout`) as the reader (`reading`: for bytes or the end) or the
    /// writer (for credit, room in the link's queue, or what it queued to leave) until `ready`
    /// or a failure; past the bound the stream is reset and the wait fails with `.idle`.
    @MainActor
    private func wait(reading: Bool, until ready: @MainActor (LinkStream) -> Bool) async throws {
        let timeout = idleTimeout
        let timer = MainLoop.after(timeout) { [weak self] in
            guard let self, self.failure == nil else { return }
            self.streams.emit(.streamReset(stream: self.id, aborted: true))
            self.fail(TransportError.idle(timeout))
        }
        defer { timer.cancel() }
        try await withThrowingLoopContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // What it waits for may have come while the task moved to the loop.
            if let failure { return continuation.resume(throwing: failure) }
            if ready(self) { return continuation.resume() }
            if reading { reader = continuation } else { writer = continuation }
        }
    }

    private func onLoop(_ body: @escaping @MainActor (LinkStream) -> Void) {
        if Thread.isMainThread {
            MainActor.assumeIsolated { body(self) }
        } else {
            Task { @MainActor in body(self) }
        }
    }

    /// This side closes the stream: the peer is told (unless the stream already failed), and
    /// this side's own waiting read or write fails.
    @MainActor
    private func shut(aborted: Bool) {
        guard failure == nil else { return }
        if !isDone { streams.emit(.streamReset(stream: id, aborted: aborted)) }
        fail(TransportError.closed)
    }

    // MARK: From the link (LinkStreams)

    /// `StreamData` from the peer: false if it is past the credit this side gave.
    @MainActor
    func arrived(_ bytes: Data) -> Bool {
        guard failure == nil, !ended else { return true }  // after a reset or the end: dropped
        receivedTotal += bytes.count
        guard receivedTotal - creditedTotal <= LinkStreams.window else { return false }
        if !bytes.isEmpty {
            chunks.append(bytes)
            buffered += bytes.count
        }
        wake(&reader)
        return true
    }

    /// `StreamEnd` from the peer.
    @MainActor
    func peerFinished() {
        ended = true
        // Everything the peer wrote is here: all its credit goes back, which tells its
        // `finishWriting()` so.
        let owed = receivedTotal - creditedTotal
        if owed > 0, failure == nil {
            creditedTotal += owed
            streams.emit(.streamCredit(stream: id, bytes: UInt32(owed)))
        }
        wake(&reader)
        if isDone { streams.forget(self) }
    }

    /// Some of the link's queue went to the peer: a write waiting for room, or a
    /// `finishWriting()` waiting for its bytes to leave, looks again.
    @MainActor
    func outputSent() { wake(&writer) }

    /// `StreamCredit` from the peer.
    @MainActor
    func credited(_ bytes: UInt32) {
        credit = min(credit + Int(bytes), LinkStreams.window)
        wake(&writer)
    }

    /// `StreamReset` from the peer: an aborting one fails reads at once; otherwise what arrived
    /// is still read, then the end. Writes fail either way.
    @MainActor
    func peerReset(aborted: Bool) {
        if aborted {
            fail(TransportError.connectionFailed(GLibError(domain: "baton", code: 0, message: "the peer broke the stream")))
        } else {
            ended = true
            finishedWriting = true
            wake(&reader)
            let writer = self.writer
            self.writer = nil
            writer?.resume(throwing: TransportError.closed)
            if isDone { streams.forget(self) }
        }
    }

    /// The link went: a stream whose peer had finished writing can still be read to its end
    /// (everything arrived); otherwise it fails (`fail(TransportError.closed)`). Writes fail either way.
    @MainActor
    func linkClosed() {
        guard ended, failure == nil else { return fail(TransportError.closed) }
        linkGone = true
        finishedWriting = true
        let writer = self.writer
        self.writer = nil
        writer?.resume(throwing: TransportError.closed)
        streams.forget(self)
    }

    /// The peer did not open the stream (`LinkStreams.open`): it refused, did not answer in
    /// time (`timedOut`: the stream is reset too, in case it opens it late), or the link went.
    /// Waiting and later reads and writes throw `error`, a Handoff error.
    @MainActor
    func openFailed(_ error: CocoaError, timedOut: Bool) {
        guard failure == nil else { return }
        if timedOut { streams.emit(.streamReset(stream: id, aborted: true)) }
        fail(error)
    }

    /// The stream cannot be used any more (the link went, a reset, the idle bound, a refused
    /// open): waiting reads and writes fail with `error`, buffered bytes are dropped.
    @MainActor
    func fail(_ error: any Error) {
        guard failure == nil else { return }
        failure = error
        chunks = []
        head = 0
        buffered = 0
        let waiting = [reader, writer]
        reader = nil
        writer = nil
        for continuation in waiting { continuation?.resume(throwing: error) }
        streams.forget(self)
    }

    @MainActor
    private func wake(_ waiter: inout CheckedContinuation<Void, any Error>?) {
        let continuation = waiter
        waiter = nil
        continuation?.resume()
    }
}
