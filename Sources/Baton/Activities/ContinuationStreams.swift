import Foundation

/// The byte channel under a pair of continuation streams: one authenticated connection to the
/// other device. The continuity layer provides it; layers 1–3 know nothing of sockets.
///
/// Reads and writes run on the caller's actor (`nonisolated(nonsending)`): called from the main
/// actor, a transfer stays on the loop thread instead of crossing to Swift's pool and back for
/// every piece; conforming types mark their methods the same way.
public protocol ContinuationStreamChannel: AnyObject, Sendable {
    /// Up to `maxLength` bytes as soon as some arrive; empty once the other side has finished
    /// writing. Throws if the connection broke (the peer died, the link timed out, nothing
    /// came within the channel's idle bound) or was closed.
    nonisolated(nonsending) func read(maxLength: Int) async throws -> Data
    /// Writes all of `data`; throws if the connection broke or was closed.
    nonisolated(nonsending) func write(_ data: Data) async throws
    /// Ends this side's writing: the other side reads to its end.
    nonisolated(nonsending) func finishWriting() async throws
    /// Closes the connection both ways; pending reads and writes on either side end.
    func close()
    /// Breaks the connection: like `close()`, but the other side's reads fail instead of
    /// ending as if this side had finished writing (a relay whose other end broke).
    func abort()
}

extension ContinuationStreamChannel {
    /// `close()`, for channels whose close never reads as a finished stream.
    public func abort() { close() }
}

/// Bytes from the other side of a continuation (Foundation's `InputStream` in Apple's API): an
/// async sequence of chunks on the main actor's loop, ending when the other side finishes
/// writing (handoff-programming-guide, "Using Continuation Streams").
public final class ContinuationInputStream: AsyncSequence, Sendable {
    public typealias Element = Data
    public typealias Failure = any Error
    let channel: any ContinuationStreamChannel

    init(channel: any ContinuationStreamChannel) { self.channel = channel }

    /// Up to `maxLength` bytes as soon as some arrive; empty at the end of the stream.
    nonisolated(nonsending) public func read(maxLength: Int = 64 * 1024) async throws -> Data {
        try await channel.read(maxLength: maxLength)
    }

    /// Everything up to the end of the stream; throws `CocoaError(.fileReadTooLarge)` past
    /// `limit` bytes, so a peer cannot make this side buffer without bound.
    nonisolated(nonsending) public func readToEnd(limit: Int) async throws -> Data {
        var result = Data()
        while true {
            let chunk = try await read()
            if chunk.isEmpty { return result }
            guard result.count + chunk.count <= limit else {
                close()
                throw CocoaError(.fileReadTooLarge, userInfo: [NSLocalizedDescriptionKey: "the stream is longer than \(limit) bytes"])
            }
            result.append(chunk)
        }
    }

    /// Closes the connection under both streams.
    public func close() { channel.close() }

    /// The chunks, read on the actor of the loop that iterates them: `for try await` on the
    /// main actor stays on the loop thread for every chunk.
    public struct AsyncIterator: AsyncIteratorProtocol {
        public typealias Failure = any Error
        let stream: ContinuationInputStream

        public mutating func next() async throws -> Data? { try await next(isolation: nil) }

        /// The next chunk, on the caller's actor (`for try await` passes it): a plain `next()` is
        /// nonisolated, so each chunk would cross to Swift's pool and back.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Data? {
            let chunk = try await stream.read()
            return chunk.isEmpty ? nil : chunk
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

/// Bytes to the other side of a continuation (Foundation's `OutputStream` in Apple's API).
public final class ContinuationOutputStream: Sendable {
    let channel: any ContinuationStreamChannel

    init(channel: any ContinuationStreamChannel) { self.channel = channel }

    /// Writes all of `data`, waiting while the network is behind.
    nonisolated(nonsending) public func write(_ data: Data) async throws { try await channel.write(data) }

    /// Ends the stream: the other side's input reaches its end. Request and response: the
    /// continuing side writes its request and closes its output, the originating side reads to
    /// the end, answers and closes its own.
    nonisolated(nonsending) public func close() async throws { try await channel.finishWriting() }
}

extension UserActivity {
    /// The input and output streams over `channel` (for the layer that makes channels).
    public static func streams(over channel: any ContinuationStreamChannel) -> (ContinuationInputStream, ContinuationOutputStream) {
        (ContinuationInputStream(channel: channel), ContinuationOutputStream(channel: channel))
    }

    /// On the continuing side, opens streams back to the originating activity (Apple's
    /// `getContinuationStreams(completionHandler:)`; handoff-programming-guide, "Using
    /// Continuation Streams"). The originating activity's delegate gets the other ends in
    /// `userActivity(_:didReceive:outputStream:)`.
    ///
    /// The handler gets the streams as soon as the request for them has gone, without waiting
    /// for the other device's answer: what it writes travels right behind the request, so a
    /// request and its response take one round trip. It gets an error instead when the streams
    /// cannot be asked for: `.featureUnsupported` when the activity did not come from another
    /// device or its originating activity does not set `supportsContinuationStreams`;
    /// `.userActivityConnectionUnavailable` when the other device cannot be reached;
    /// `.userActivityHandoffFailed` when too many streams are open to it already.
    ///
    /// If the other device then does not open them, the streams report it as Foundation's
    /// streams report a refused connection (`streamError`): their pending and later reads and
    /// writes throw the Handoff error — `.featureUnsupported` when the originating app takes no
    /// streams, `.userActivityHandoffFailed` when the device refuses them,
    /// `.userActivityRemoteApplicationTimedOut` when it does not answer in time,
    /// `.userActivityConnectionUnavailable` when the connection goes first. They never read as
    /// empty streams.
    public func getContinuationStreams(
        completionHandler: @escaping @MainActor (ContinuationInputStream?, ContinuationOutputStream?, (any Error)?) -> Void
    ) {
        Task { @MainActor in
            do {
                let (input, output) = try await continuationStreams()
                completionHandler(input, output, nil)
            } catch {
                completionHandler(nil, nil, error)
            }
        }
    }

    /// `getContinuationStreams(completionHandler:)` as an `async` call.
    public func continuationStreams() async throws -> (ContinuationInputStream, ContinuationOutputStream) {
        guard supportsContinuationStreams, let opener = streamOpener else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey:
                "\(activityType) was not continued from an activity that supports continuation streams"])
        }
        return UserActivity.streams(over: try await opener())
    }
}
