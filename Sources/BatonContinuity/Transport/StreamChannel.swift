import Baton
import BatonLoop
import CGLib
import Foundation

/// A continuation stream channel: its own mutually authenticated TLS connection to the other
/// device (ALPN `baton-stream/1`, on the device's one listening port), bound to the
/// continuation by a one-time token asked for over the device link.
///
/// Every read and write is bounded by `idleTimeout`: a read that gets nothing, or a write the
/// peer does not take, for that long shuts the connection down (`SecureChannel.abort()`) and
/// fails with `TransportError.idle`; the peer's own reads and writes then fail too. Writes go
/// out in pieces of at most 64 KiB, each bounded on its own, so a large write that keeps
/// moving never times out.
///
/// Reads and writes run on the caller's actor and start GIO's calls on the main actor, so a
/// transfer driven from the main actor (an app's, or the agent's relay) never leaves the loop
/// thread. A read takes every TLS record already received, up to `maxLength`, not one 16 KiB
/// record per turn of the loop.
final class StreamChannel: ContinuationStreamChannel {
    let channel: SecureChannel
    let idleTimeout: Duration
    static let writePiece = 64 * 1024
    /// The buffer reads land in, reused from one read to the next (one reader at a time).
    @MainActor private var buffer = ReadBuffer()

    init(_ channel: SecureChannel, idleTimeout: Duration) {
        self.channel = channel
        self.idleTimeout = idleTimeout
    }

    nonisolated(nonsending) func read(maxLength: Int) async throws -> Data {
        try await receive(maxLength: max(1, maxLength))
    }

    /// One read that waits (bounded) for the first bytes, then the records already here
    /// without waiting, up to `maxLength` bytes.
    @MainActor
    private func receive(maxLength: Int) async throws -> Data {
        let input = SendablePointer(g_io_stream_get_input_stream(channel.stream)!)
        let space = SendableRawPointer(buffer.reserve(maxLength))
        let first: Int = try await bounded {
            do {
                return try await GIOAsync.call { cancellable, callback, userData in
                    g_input_stream_read_async(input.pointer, space.pointer, gsize(maxLength), G_PRIORITY_DEFAULT,
                                              cancellable, callback, userData)
                } finish: { result, error in
                    let n = g_input_stream_read_finish(input.pointer, result, error)
                    return n < 0 ? nil : Int(n)
                }
            } catch {
                throw TransportError.connectionFailed(GLibError(error))
            }
        }
        var count = first
        // The records that came with it: a would-block (or any error, or the end, which the
        // next read meets again) stops the drain.
        if first > 0, g_pollable_input_stream_can_poll(OpaquePointer(input.pointer)) != 0 {
            while count < maxLength {
                let n = g_pollable_input_stream_read_nonblocking(OpaquePointer(input.pointer), space.pointer + count,
                                                                  gsize(maxLength - count), nil, nil)
                guard n > 0 else { break }
                count += n
            }
        }
        return Data(bytes: space.pointer, count: count)
    }

    nonisolated(nonsending) func write(_ data: Data) async throws {
        var offset = data.startIndex
        repeat {
            let piece = data[offset..<min(offset + Self.writePiece, data.endIndex)]
            try await send(Data(piece))
            offset += piece.count
        } while offset < data.endIndex
    }

    @MainActor
    private func send(_ piece: Data) async throws {
        let channel = channel
        try await bounded { try await channel.send(piece) }
    }

    nonisolated(nonsending) func finishWriting() async throws {
        try await finish()
    }

    @MainActor
    private func finish() async throws {
        let channel = channel
        try await bounded { try await channel.finishWriting() }
    }

    func close() { channel.close() }

    /// Shuts the TCP connection down without a TLS close: the peer's reads fail (no close_notify).
    func abort() { channel.abort() }

    /// Runs `operation`, aborting the connection if it has not finished within `idleTimeout`.
    @MainActor
    private func bounded<T: Sendable>(_ operation: @MainActor () async throws -> T) async throws -> T {
        let idle = ManagedFlag()
        let channel = channel
        let timer = MainLoop.after(idleTimeout) {
            idle.set()
            channel.abort()
        }
        defer { timer.cancel() }
        do {
            return try await operation()
        } catch {
            if idle.isSet { throw TransportError.idle(idleTimeout) }
            throw error
        }
    }
}
