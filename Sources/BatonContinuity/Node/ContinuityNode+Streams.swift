import Baton
import BatonLoop
import Foundation

/// A continuation stream connection the originating device has agreed to: from `peer`, to
/// `activity`, until `expiry`.
struct StreamGrant {
    let peer: String
    weak var activity: UserActivity?
    let expiry: LoopSource
}

/// Continuation streams between devices (handoff-programming-guide, "Using Continuation
/// Streams"): the continuing side asks the originating device over their link for a one-time
/// token (`OpenStreams`), makes a second mutually authenticated TLS connection to the same
/// port with ALPN `baton-stream/1`, and sends the token first. The originating side checks
/// that the token is one it granted to that very device and hands the connection to the
/// activity's delegate as a pair of streams.
extension ContinuityNode {
    /// Token size, and how long a grant waits for its connection.
    static let streamTokenSize = 32
    static let streamGrantLifetime: Duration = .seconds(30)

    func streamGrant(sequence: UInt64, for peer: String) throws(DeviceServiceError) -> (token: Data, port: UInt16) {
        guard let listener, let advertised, advertised.sequence == sequence, let activity = advertisedActivity, activity.isValid else {
            throw .notCurrent
        }
        guard activity.supportsContinuationStreams, activity.delegate != nil else {
            throw .noStreams("\(activity.activityType) does not support continuation streams")
        }
        var generator = SystemRandomNumberGenerator()
        let token = Data((0..<Self.streamTokenSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let expiry = MainLoop.after(Self.streamGrantLifetime) { [weak self] in self?.streamGrants[token] = nil }
        streamGrants[token] = StreamGrant(peer: peer, activity: activity, expiry: expiry)
        return (token, listener.port)
    }

    /// An incoming stream connection: its first bytes are the token. A token this device did
    /// not grant to that peer, or none within the grant's lifetime, closes the connection.
    func acceptStreams(_ channel: SecureChannel) async {
        let deadline = MainLoop.after(Self.streamGrantLifetime) { channel.close() }
        defer { deadline.cancel() }
        var token = Data()
        do {
            while token.count < Self.streamTokenSize {
                let chunk = try await channel.receive(maxLength: Self.streamTokenSize - token.count)
                guard !chunk.isEmpty else { return channel.close() }
                token.append(chunk)
            }
        } catch {
            return log.notice("a stream connection from \(channel.peerName) failed before its token: \(error)")
        }
        guard let grant = streamGrants.removeValue(forKey: token), grant.peer == channel.peerName else {
            log.notice("refused a stream connection from \(channel.peerName): not a token granted to it")
            return channel.close()
        }
        grant.expiry.cancel()
        guard let activity = grant.activity, let delegate = activity.delegate else { return channel.close() }
        let (input, output) = UserActivity.streams(over: StreamChannel(channel))
        log.debug("streams open to \(channel.peerName) for \(activity.activityType)")
        delegate.userActivity(activity, didReceive: input, outputStream: output)
    }

    /// On the continuing side: a stream channel to `activity` on its device.
    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        let (reply, link) = try await callDevice(activity.device, "OpenStreams", .tuple([.uint64(activity.sequence)]), replyType: "(ayu)")
        guard let host = link.host ?? link.dialed?.host else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "no address for \(activity.device)"])
        }
        guard case .tuple(let items) = reply, items.count == 2, case .bytes(let token) = items[0], token.count == Self.streamTokenSize,
              case .uint32(let port) = items[1], let validPort = UInt16(exactly: port), validPort > 0 else {
            throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: "malformed OpenStreams reply"])
        }
        do {
            let channel = try await SecureChannel.connect(host: host, port: validPort, identity: currentIdentity(), credential: credential,
                                                          applicationProtocol: SecureChannel.streamALPN)
            guard channel.peerName == activity.device else {
                channel.close()
                throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey:
                    "the stream port of \(activity.device) answered as \(channel.peerName)"])
            }
            try await channel.send(token)
            return StreamChannel(channel)
        } catch let error as TransportError {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }
}
