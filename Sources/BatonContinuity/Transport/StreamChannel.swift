import Baton
import BatonLoop
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
final class StreamChannel: ContinuationStreamChannel {
    let channel: SecureChannel
    let idleTimeout: Duration
    static let writePiece = 64 * 1024

    init(_ channel: SecureChannel, idleTimeout: Duration) {
        self.channel = channel
        self.idleTimeout = idleTimeout
    }

    func read(maxLength: Int) async throws -> Data {
        let channel = channel
        return try await bounded { try await channel.receive(maxLength: maxLength) }
    }

    func write(_ data: Data) async throws {
        let channel = channel
        var offset = data.startIndex
        repeat {
            let piece = data[offset..<min(offset + Self.writePiece, data.endIndex)]
            try await bounded { try await channel.send(Data(piece)) }
            offset += piece.count
        } while offset < data.endIndex
    }

    func finishWriting() async throws {
        let channel = channel
        try await bounded { try await channel.finishWriting() }
    }

    func close() { channel.close() }

    /// Shuts the TCP connection down without a TLS close: the peer's reads fail (no close_notify).
    func abort() { channel.abort() }

    /// Runs `operation`, aborting the connection if it has not finished within `idleTimeout`.
    @MainActor
    private func bounded<T: Sendable>(_ operation: @Sendable () async throws -> T) async throws -> T {
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
