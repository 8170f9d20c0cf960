import BatonLoop
import CGLib
import Foundation
import Logging

/// D-Bus peer-to-peer over any GIO stream, read and written on the app's loop thread: the one
/// D-Bus engine of every connection Baton makes — a link between devices (a TLS connection,
/// `PeerBus`) and an app's connection to its agent (a Unix socket, `LocalBus`).
///
/// It speaks the D-Bus wire protocol (SASL authentication, `DBusAuthentication`, then messages
/// that GLib encodes and decodes: `g_dbus_message_to_blob`, `g_dbus_message_new_from_blob`), so
/// any D-Bus library in peer-to-peer mode can talk to it, but it moves the bytes itself, through
/// the stream's pollable input and output (`g_pollable_input_stream_read_nonblocking`, and
/// their sources on the loop): a message is written by the call that sends it and read by the
/// loop's watch on the stream. There is no GDBus connection, so no GDBus worker thread and no
/// hop to it and back for each message.
///
/// Bounded: a message whose fixed header announces a body over `maximumMessageBody` or header
/// fields over `maximumHeaderFields` closes the connection before any more of it is read
/// (`DBusFraming`); a malformed message closes it; at most `maximumQueuedOutput` bytes wait
/// for a peer that does not read, past which it is closed. Each refusal is logged once, in a
/// line of bounded length (never the peer's bytes), as the connection ends. Every call made on
/// it has a deadline.
@MainActor
package final class DBusConnection {
    /// The largest message body taken from a peer: an activity payload at its limit (64 KiB)
    /// with room to spare for the rest of the protocol.
    nonisolated package static let maximumMessageBody = 256 * 1024
    /// The largest header-fields array taken from a peer (path, interface, member, signature…).
    nonisolated package static let maximumHeaderFields = 64 * 1024
    /// Bytes written to a peer that does not read them, past which the connection is closed.
    nonisolated package static let maximumQueuedOutput = 16 * 1024 * 1024
    /// How much one read takes from the stream.
    nonisolated package static let readChunk = 64 * 1024
    /// Bytes a connection whose reading is paused still reads and holds, untaken, over a stream
    /// whose packets are handled only while it is read (an ICE stream,
    /// `TransportBase.isHandledOnlyWhileRead`): one continuation stream's window, about what a
    /// TCP socket's receive buffer holds for a paused reader. A peer sending more while reading is
    /// paused fills it, and then the link stands still both ways until reading resumes.
    nonisolated package static let maximumPausedInput = 1024 * 1024
    /// Bytes read in one turn of the loop before the others get theirs (the rest waits for the
    /// next turn): a few of the largest messages, so one busy connection does not starve the loop.
    nonisolated package static let bytesPerTurn = 256 * 1024
    /// The longest refusal reason logged: GLib's decoding errors can quote a peer's string.
    static let maximumReasonLength = 240

    /// The `GIOStream *` (a reference, released when the connection closes).
    private(set) var stream: UnsafeMutablePointer<GIOStream>?
    /// Its input, a `GPollableInputStream *`, and output, a `GPollableOutputStream *`.
    let inputStream: OpaquePointer
    let outputStream: OpaquePointer
    /// What is under the stream, ended by `close()` and `abortTransport()` so the other side sees
    /// the end at once: a socket shut down, or a stream that is no socket (an ICE stream)
    /// closed (a reference, released when the connection goes).
    let base: TransportBase
    /// Cancelled by `abortTransport()` (and, over an ICE stream, by the stream's own end: its
    /// path failed): a wait for the stream to be readable ends with it, as it ends when a
    /// socket is shut down. Over a socket its shutdown does that already; a stream that is no
    /// socket may say nothing when closed under its reader.
    let aborted: UnsafeMutablePointer<GCancellable>
    let log: Logger
    /// What the other end is called in the log: "link", "connection".
    let kind: String
    /// The D-Bus error a call dropped unanswered, or whose reply cannot be encoded, fails with.
    let fallbackErrorName: String
    let framing = DBusFraming(maximumBody: DBusConnection.maximumMessageBody,
                              maximumHeaderFields: DBusConnection.maximumHeaderFields)

    /// Bytes read and not yet taken; `inputStart` is where the untaken part begins.
    let input = ReadBuffer()
    var inputStart = 0
    /// Bytes waiting for the peer, in the pieces they were queued in (each the unsent rest of
    /// what one write had): `outputHead` is the first piece not all sent, `outputStart` how
    /// much of it is, `queuedOutput` the bytes from that piece on. Sending never moves what
    /// waits, and each piece is given back once it is sent.
    var output: [[UInt8]] = []
    var outputHead = 0
    var outputStart = 0
    var queuedOutput = 0
    var readWatch: (any StreamWatch)?
    var writeWatch: (any StreamWatch)?
    /// The socket's descriptor when the stream is the socket's own or TLS on it (`makeReadWatch()`).
    let socketDescriptor: Int32?
    /// Whether the stream may hold bytes read from the socket that it has not given yet (TLS:
    /// GnuTLS decrypts a whole record, and keeps what a read did not ask for).
    let streamHoldsReadBytes: Bool
    var readAgain: LoopSource?
    /// Called each time everything written has gone to the peer after some had to wait (the
    /// peer was not reading as fast): for a sender that sends only the latest state to a
    /// slow reader, once it has taken the last.
    package var onOutputDrained: (@MainActor () -> Void)?
    /// Called each time bytes that had to wait went to the peer (some or all of them): for a
    /// sender that waits for room in the queue.
    package var onOutputSent: (@MainActor () -> Void)?
    var processing = false
    /// Set while a pipelined authentication waits for the server's answer
    /// (`authenticateToServer(timeout:pipelined:)`): no message is read before it.
    var awaitingServerAnswer = false
    /// Set by `pauseReading()`.
    var readingPaused = false
    package private(set) var isClosed = false
    private var lastSerial: UInt32 = 0
    var pending: [UInt32: PendingCall] = [:]
    var objects: [String: ServedObject] = [:]
    var subscriptions: [UInt32: Subscription] = [:]
    var lastSubscription: UInt32 = 0
    private var closedHandlers: [@MainActor () -> Void] = []

    struct PendingCall {
        let method: String
        let replyType: String
        let resume: @MainActor (Result<[Variant], GLibError>) -> Void
        let expiry: LoopSource
    }

    struct ServedObject {
        let info: UnsafeMutablePointer<GDBusInterfaceInfo>
        /// The interface's name, and each method's arguments' signature, read from `info` once.
        let interface: String
        let signatures: [String: String]
        let handler: @MainActor (MethodCall) -> Void
    }

    struct Subscription {
        let path: String, interface: String, member: String
        let body: @MainActor ([Variant]) -> Void
    }

    /// A connection over `stream` (a `GIOStream *` whose input and output are pollable, such
    /// as a socket connection or a TLS connection over one, or over an ICE stream; it takes a
    /// reference), on `socket` (the socket under it), not yet authenticated: `serve` and
    /// `connect` (`DBusAuthentication`) make one. `log` and `kind` name it in refusals.
    package convenience init(stream: UnsafeMutablePointer<GIOStream>, socket: UnsafeMutablePointer<GSocket>, log: Logger, kind: String,
                             fallbackErrorName: String) {
        self.init(stream: stream, base: .socket(socket), log: log, kind: kind, fallbackErrorName: fallbackErrorName)
    }

    /// A connection over `stream`, as `init(stream:socket:log:kind:fallbackErrorName:)`, on
    /// `base`: the socket under it, or the stream under it that is no socket (an ICE stream,
    /// closed to end the connection at once).
    package init(stream: UnsafeMutablePointer<GIOStream>, base: TransportBase, log: Logger, kind: String,
                 fallbackErrorName: String) {
        self.stream = g_object_ref(stream).assumingMemoryBound(to: GIOStream.self)
        self.base = base.retained()
        aborted = base.endedCancellable()
        socketDescriptor = Self.watchedDescriptor(of: stream, base: base)
        streamHoldsReadBytes = Self.isTLS(stream)
        inputStream = OpaquePointer(g_io_stream_get_input_stream(stream))
        outputStream = OpaquePointer(g_io_stream_get_output_stream(stream))
        self.log = log
        self.kind = kind
        self.fallbackErrorName = fallbackErrorName
    }

    isolated deinit {
        readWatch?.cancel()
        writeWatch?.cancel()
        readAgain?.cancel()
        if let stream { g_object_unref(stream) }
        base.release()
        g_object_unref(aborted)
    }

    /// Bytes waiting for the peer to take them (its end is full: it has not read them yet).
    package var unsentOutputBytes: Int { queuedOutput - outputStart }

    /// Bytes held for writing, sent ones not yet given back included: `unsentOutputBytes` plus
    /// the sent part of one piece (less than one `readChunk`, or one message larger than that).
    package var heldOutputBytes: Int { queuedOutput }

    // MARK: Lifecycle

    /// Lets incoming messages through: until this is called they wait, so a side exports its
    /// object before any call reaches it.
    package func startMessageProcessing() {
        guard !isClosed, !processing else { return }
        processing = true
        if !awaitingServerAnswer { beginReadingMessages() }
    }

    /// Watches the stream for messages and handles those already read.
    func beginReadingMessages() {
        guard !isClosed else { return }
        if !readingPaused || base.isHandledOnlyWhileRead { watchForReading() }
        takeMessages()
    }

    /// Stops reading from the peer until `resumeReading()`; messages already read are still
    /// handled. What the peer sends waits in the kernel, and its flow control slows the peer.
    /// Over an ICE stream libnice handles the path's packets only while the stream is read (its
    /// acknowledgements of what this side sends too), so there the connection goes on reading
    /// without taking messages, up to `maximumPausedInput` held: the link still sends, and the
    /// peer's sends still complete; past that much, it stands still both ways until resumed.
    package func pauseReading() {
        guard !isClosed, !readingPaused else { return }
        readingPaused = true
        guard !base.isHandledOnlyWhileRead else { return }
        readWatch?.cancel()
        readAgain?.cancel()
        readWatch = nil
        readAgain = nil
    }

    /// Reads from the peer again after `pauseReading()`, first taking the messages read meanwhile.
    package func resumeReading() {
        guard !isClosed, readingPaused else { return }
        readingPaused = false
        guard processing, !awaitingServerAnswer else { return }
        readWatch?.cancel()
        readAgain?.cancel()
        readWatch = nil
        readAgain = nil
        takeMessages()
        // A message taken may have paused reading again.
        guard !isClosed, !readingPaused || base.isHandledOnlyWhileRead else { return }
        watchForReading()
    }

    /// Runs `body` once when the connection ends, from either side, from the loop (never from
    /// within `close`); on a connection already closed, at the loop's next turn.
    package func onClosed(_ body: @escaping @MainActor () -> Void) {
        guard !isClosed else {
            MainLoop.idle(priority: .default) { body() }
            return
        }
        closedHandlers.append(body)
    }

    /// Closes the connection; the peer sees it closed at once (the socket is shut down; an ICE
    /// stream is closed, and libnice's pseudo-TCP sends its FIN). Calls
    /// waiting for replies fail with `G_IO_ERROR_CLOSED`; bytes not yet written are dropped.
    /// It never waits on the peer. More than once is harmless.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        onOutputDrained = nil
        onOutputSent = nil
        onRefused = nil
        readWatch?.cancel()
        writeWatch?.cancel()
        readAgain?.cancel()
        readWatch = nil
        writeWatch = nil
        readAgain = nil
        abortTransport()
        if let stream {
            g_object_unref(stream)
            self.stream = nil
        }
        input.release()
        inputStart = 0
        output = []
        (outputHead, outputStart, queuedOutput) = (0, 0, 0)
        let calls = pending.values
        pending = [:]
        for call in calls {
            call.expiry.cancel()
            call.resume(.failure(Self.ioError(G_IO_ERROR_CLOSED, "The connection is closed")))
        }
        let handlers = closedHandlers
        closedHandlers = []
        if !handlers.isEmpty { MainLoop.idle(priority: .default) { for handler in handlers { handler() } } }
    }

    /// Shuts the socket down both ways, or closes the stream that is no socket: whatever waits
    /// on it ends now (for a deadline), and the peer reads the end.
    package func abortTransport() {
        base.end()
        g_cancellable_cancel(aborted)
    }

    /// Closes the connection because the server did not accept a pipelined authentication
    /// (or did not answer in time), saying so once.
    func refusePipelinedAuthentication(_ reason: String) {
        guard !isClosed else { return }
        log.notice("\(reason): closing the \(kind)")
        close()
    }

    /// Closes the connection because of what the peer did, saying so once, briefly.
    package func refuse(_ reason: String, as refusal: DiagnosticEvent.RefusalReason = .malformedMessage) {
        guard !isClosed else { return }
        let brief = reason.count > Self.maximumReasonLength ? reason.prefix(Self.maximumReasonLength) + "…" : reason
        log.warning("\(brief): closing the \(kind)")
        onRefused?(refusal)
        close()
    }

    /// Told why, when this side closes the connection for what the peer sent (before
    /// `onClosed`'s handlers run).
    package var onRefused: (@MainActor (DiagnosticEvent.RefusalReason) -> Void)?

    /// The serial of the next message this side writes: never 0, wrapping past `UInt32.max`.
    func nextSerial() -> UInt32 {
        lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
        return lastSerial
    }

    package static let ioDomain = String(cString: g_quark_to_string(g_io_error_quark()))

    package static func ioError(_ code: GIOErrorEnum, _ message: String) -> GLibError {
        GLibError(domain: ioDomain, code: gint(code.rawValue), message: message)
    }
}
