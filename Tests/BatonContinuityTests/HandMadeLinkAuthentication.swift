@testable import BatonContinuity
import Foundation

extension SecureChannel {
    /// D-Bus authentication by hand on a link this side dialed, as a hostile peer would do it:
    /// the credentials byte and ANONYMOUS, waiting for the device's `OK`. The caller then sends
    /// `BEGIN` and whatever bytes it wants the device to read as messages.
    func authenticateAnonymouslyByHand() async throws {
        try await send(Data([0]) + Data("AUTH ANONYMOUS 6261746f6e\r\n".utf8))
        var reply = Data()
        while !reply.contains(UInt8(ascii: "\n")) {
            let chunk = try await receive(maxLength: 256)
            guard !chunk.isEmpty else { throw TransportError.closed }
            reply += chunk
        }
        guard reply.starts(with: Data("OK ".utf8)) else { throw TransportError.closed }
    }
}
