import Baton
import Foundation

/// A continuation stream channel: its own mutually authenticated TLS connection to the other
/// device (ALPN `baton-stream/1`, on the device's one listening port), bound to the
/// continuation by a one-time token asked for over the device link.
final class StreamChannel: ContinuationStreamChannel {
    let channel: SecureChannel

    init(_ channel: SecureChannel) { self.channel = channel }

    func read(maxLength: Int) async throws -> Data { try await channel.receive(maxLength: maxLength) }
    func write(_ data: Data) async throws { try await channel.send(data) }
    func finishWriting() async throws { try await channel.finishWriting() }
    func close() { channel.close() }
}
