import Baton
import BatonLoop
import CGLib
import Foundation

/// The continuation streams multiplexed on one device link (docs/PROTOCOL.md, "Continuation
/// streams"): no second connection, and the opener's first bytes follow `OpenStreams` without
/// waiting for its answer (`open(sequence:idleTimeout:timeout:)`), so a request and its
/// response on a warm link take one round trip.
///
/// The continuing side picks each stream's id and calls `OpenStreams(sequence, id)`; the side
/// that accepted the link's TCP connection picks even ids, the side that dialed odd ones, each
/// growing, so ids never collide and an id is never used twice on a link. Bytes, the end of
/// writing, resets and credit travel as `StreamData`, `StreamEnd`, `StreamReset` and
/// `StreamCredit` signals (`LinkStream`).
///
/// Hostile input must not grow memory: a peer that has more than `maximumStreams` streams open
/// on the link (of those it opened), opens an id that is not its own next one, sends on an id never opened, or sends
/// past the credit it was given (`window`) breaks the protocol, and the link is closed (a
/// refusal, `.malformedMessage`). Signals for a stream this side already closed are dropped:
/// they may have crossed its reset; so are those for an id whose `OpenStreams` this side
/// refused (`admits` took the id, the open was then refused): they were pipelined behind it.
/// Dropped bytes are counted (`droppedBytes`) and bounded: each id opened lets the peer have
/// one more window dropped (what an honest peer can have in flight when a stream closes), up
/// to `maximumDropAllowance`; past that the link is closed as a violation. Stream traffic is
/// not charged to the activity-update budget; the window and the chunk size bound how much of
/// the link one stream holds at a time.
@MainActor
final class LinkStreams {
    /// The most bytes a writer may have sent that its reader has not given back: enough to
    /// cover the round trip of the credit through two agents' relays on a loaded machine (at
    /// 1 GB/s, a millisecond), and small enough that a link whose streams are all flooded
    /// holds little (`maximumBufferedBytes`).
    nonisolated static let window = 1024 * 1024
    /// The most bytes in one `StreamData` (well under `DBusConnection.maximumMessageBody`): 64
    /// KiB less the message's header and its other argument (128 bytes), so a whole message is
    /// four full TLS records of 16 KiB, not four and a fifth of 128 bytes (a record, a write and
    /// a read more each).
    nonisolated static let chunk = 64 * 1024 - 128
    /// The most bytes in a stream's first `StreamData`: it fits one TLS record, so the reader
    /// has the first bytes without waiting for a whole `chunk` to be encoded, sent and decoded.
    nonisolated static let firstChunk = 8 * 1024
    /// A reader gives credit back each time it has read this many bytes more.
    nonisolated static let creditBatch = window / 8
    /// Bytes waiting in the link's queue for the peer's socket past which writers wait for the
    /// queue to drain before they add more: the loop is never held encoding more than the
    /// socket takes, and what the link must send next (an activity update, a payload) waits
    /// behind at most this much stream data, whatever the windows.
    nonisolated static let queuedOutputLimit = 1024 * 1024
    /// The most streams open on one link at once.
    nonisolated static let maximumStreams = 8
    /// The most received stream bytes a link holds unread, whatever the peer sends: a window
    /// for each stream it may have open (8 MiB). Past it the peer broke the credit rule and the
    /// link is closed.
    nonisolated static let maximumBufferedBytes = maximumStreams * window
    /// The most stream bytes a peer may have sent that this side dropped and did not yet
    /// earn back (`droppedAllowance`): one window for each stream either side may have open.
    nonisolated static let maximumDropAllowance = 2 * maximumStreams * window

    private let bus: DBusConnection
    private var open: [UInt32: LinkStream] = [:]
    /// The last id this side picked, and the last the peer opened (-1 and 0 for none: the
    /// parity is the side's).
    private var lastOwn: Int64
    private var lastPeer: Int64
    /// Bytes of `StreamData` dropped because their stream was closed here or its open was
    /// refused (counted for inspection and tests).
    private(set) var droppedBytes = 0
    /// How many more bytes may be dropped before the peer breaks the protocol: each id opened
    /// (by either side) earns one window, the most an honest peer can have in flight on a stream
    /// when it is closed or refused, up to `maximumDropAllowance`; each dropped byte spends one.
    private var droppedAllowance = 0

    /// The streams of the link `bus` runs; `accepted` is whether this side accepted its TCP
    /// connection (`SecureChannel.isServer`).
    init(bus: DBusConnection, accepted: Bool) {
        self.bus = bus
        lastOwn = accepted ? 0 : -1
        lastPeer = accepted ? -1 : 0
        bus.subscribe(DeviceSignal.Member.streamData, { [weak self] (signal: DeviceSignal) in self?.handle(signal) },
                      malformed: { [weak self] in self?.violation("a StreamData signal of the wrong type") })
        for member in [DeviceSignal.Member.streamEnd, .streamReset, .streamCredit] {
            bus.subscribe(member, { [weak self] (signal: DeviceSignal) in self?.handle(signal) },
                          malformed: { [weak self] in self?.violation("a \(member.rawValue) signal of the wrong type") })
        }
        bus.onClosed { [weak self] in self?.linkClosed() }
        bus.onOutputSent = { [weak self] in self?.outputSent() }
    }

    /// Whether the link's queue is too full for a writer to add to it (`queuedOutputLimit`).
    var outputIsFull: Bool { bus.unsentOutputBytes >= Self.queuedOutputLimit }

    /// Some of the link's queue went to the peer: writers waiting for room look again.
    private func outputSent() {
        for stream in open.values { stream.outputSent() }
    }

    /// How many streams are open on the link now (opened by either side).
    var count: Int { open.count }

    /// Told once no stream is open any more (`whenNoneOpen(_:)`).
    private var noneOpen: (@MainActor () -> Void)?

    /// Runs `body` once no stream is open on the link: now if none is, else when the last one
    /// is done with (or the link closes). One at a time: a later call replaces an earlier one.
    func whenNoneOpen(_ body: @escaping @MainActor () -> Void) {
        guard open.isEmpty else { return noneOpen = body }
        noneOpen = nil
        body()
    }

    /// The last stream is done with: what waits for that (`whenNoneOpen`) runs.
    private func tellNoneOpen() {
        guard open.isEmpty, let body = noneOpen else { return }
        noneOpen = nil
        body()
    }

    /// How many of the streams open now this side opened (`own`), or the peer did.
    private func count(own: Bool) -> Int {
        let parity = (own ? lastOwn : lastPeer) & 1
        return open.keys.count(where: { Int64($0) & 1 == parity })
    }

    /// On the continuing side: a new stream with this side's next id, registered before
    /// `OpenStreams` goes so that bytes sent right after the answer are kept. Nil when this
    /// side already has `maximumStreams` open on the link. Each side counts the streams it
    /// opened, and a stream is over on the opening side no later than on the other (messages
    /// arrive in order; a refused open was never counted there), so an honest side never opens
    /// past the other's cap.
    func makeStream(idleTimeout: Duration) -> LinkStream? {
        guard count(own: true) < Self.maximumStreams, let id = UInt32(exactly: lastOwn + 2) else { return nil }
        lastOwn += 2
        earnDropAllowance()
        let stream = LinkStream(id: id, on: self, idleTimeout: idleTimeout)
        open[stream.id] = stream
        return stream
    }

    /// On the continuing side: a new stream (`makeStream`) opened to the activity advertised
    /// with `sequence`, pipelined. `OpenStreams(sequence, id)` is queued on the link now and the
    /// stream is returned at once, before the answer: its first bytes travel right behind the
    /// call, within the stream's credit, and the peer, which handles the link's messages in
    /// order, has opened the stream by the time they arrive. So a request and its response take
    /// one round trip, not two.
    ///
    /// If the peer refuses the open (or does not answer within `timeout`, or the link goes
    /// first), the stream fails with the Handoff error of that answer
    /// (`HandoffFailure.error(for:)`: `NoStreams` is `.featureUnsupported`, a refusal
    /// `.userActivityHandoffFailed`, no answer in time `.userActivityRemoteApplicationTimedOut`,
    /// a link gone `.userActivityConnectionUnavailable`), as a stream of a refused connection
    /// reports its error: its waiting and later reads and writes throw it, and its state here is
    /// freed. The peer dropped what was written (a refused id is closed there); past the
    /// timeout the stream is also reset, so a peer that opens it late frees it too. Nil when
    /// `makeStream` is, or the link is closed.
    func open(sequence: UInt64, idleTimeout: Duration, timeout: Duration) -> LinkStream? {
        guard !bus.isClosed, let stream = makeStream(idleTimeout: idleTimeout) else { return nil }
        let method = DeviceMethod.openStreams(sequence: sequence, stream: stream.id)
        do {
            try bus.start(DeviceMethod.path, DeviceMethod.interface, method.member.rawValue, method.arguments,
                          replyType: method.member.replyType, timeout: timeout) { [weak stream] result in
                guard let stream else { return }
                switch result {
                case .success: break
                case .failure(let error): stream.openFailed(HandoffFailure.error(for: error), timedOut: error.isIOError(G_IO_ERROR_TIMED_OUT))
                }
            }
        } catch {
            forget(stream)
            return nil
        }
        return stream
    }

    /// On the originating side: whether `id` may be opened by the peer now (its next id, under
    /// the cap); if not, the peer broke the protocol and the link is closed.
    func admits(_ id: UInt32) -> Bool {
        guard Int64(id) & 1 == lastPeer & 1, Int64(id) > lastPeer else {
            violation("OpenStreams for stream \(id), not the peer's next id")
            return false
        }
        lastPeer = Int64(id)
        earnDropAllowance()
        guard count(own: false) < Self.maximumStreams else {
            violation("OpenStreams past \(Self.maximumStreams) open streams")
            return false
        }
        return true
    }

    /// On the originating side: the stream `id`, which `admits(_:)` allowed.
    func accept(_ id: UInt32, idleTimeout: Duration) -> LinkStream {
        let stream = LinkStream(id: id, on: self, idleTimeout: idleTimeout)
        open[id] = stream
        return stream
    }

    /// Sends one of a stream's signals; `StreamData` is written directly (`DBusDataSignal`):
    /// its bytes are copied once, into the message, with no `GVariant` or `GDBusMessage`.
    func emit(_ signal: DeviceSignal) {
        guard case .streamData(let id, let bytes) = signal else { return bus.emit(signal) }
        bus.emitData(DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue, number: id, bytes: bytes)
    }

    /// `stream` is done with (closed, failed or ended both ways): later signals for it are dropped.
    func forget(_ stream: LinkStream) {
        if open[stream.id] === stream { open[stream.id] = nil }
        tellNoneOpen()
    }

    private func handle(_ signal: DeviceSignal) {
        let id: UInt32
        switch signal {
        case .streamData(let stream, _), .streamEnd(let stream), .streamReset(let stream, _), .streamCredit(let stream, _): id = stream
        case .currentChanged, .revocationsChanged: return
        }
        guard let stream = open[id] else {
            if !wasOpened(id) { return violation("a stream signal for stream \(id), never opened") }
            if case .streamData(_, let bytes) = signal { dropped(bytes.count, of: id) }
            return
        }
        switch signal {
        case .streamData(_, let bytes):
            if !stream.arrived(bytes) { violation("stream \(id) sent past its credit of \(Self.window) bytes") }
        case .streamEnd: stream.peerFinished()
        case .streamReset(_, let aborted): stream.peerReset(aborted: aborted)
        case .streamCredit(_, let bytes): stream.credited(bytes)
        case .currentChanged, .revocationsChanged: break
        }
    }

    /// A stream id was opened: one more window may be dropped (`droppedAllowance`).
    private func earnDropAllowance() {
        droppedAllowance = min(droppedAllowance + Self.window, Self.maximumDropAllowance)
    }

    /// `count` bytes for the closed or refused stream `id` were dropped: counted, and past
    /// what honest traffic can leave in flight (`droppedAllowance`) the link is closed.
    private func dropped(_ count: Int, of id: UInt32) {
        droppedBytes += count
        droppedAllowance -= count
        if droppedAllowance < 0 { violation("\(droppedBytes) bytes sent on closed streams (the last on \(id)), past their windows") }
    }

    /// Whether `id` is one either side has opened on this link (so it may be closed now).
    private func wasOpened(_ id: UInt32) -> Bool {
        Int64(id) <= (Int64(id) & 1 == lastOwn & 1 ? lastOwn : lastPeer)
    }

    /// The peer broke the stream protocol: the link is closed, and its streams fail now (what
    /// they hold is dropped).
    private func violation(_ reason: String) {
        bus.refuse(reason, as: .malformedMessage)
        linkClosed()
    }

    private func linkClosed() {
        let streams = open.values
        open = [:]
        for stream in streams { stream.linkClosed() }
        tellNoneOpen()
    }
}
