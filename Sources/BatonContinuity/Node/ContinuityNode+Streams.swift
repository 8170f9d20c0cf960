import Baton
import BatonLoop
import Foundation

/// Continuation streams between devices (handoff-programming-guide, "Using Continuation
/// Streams"): the continuing side asks the originating device over their link for a one-time
/// token and a port (`OpenStreams`: the port the device listens on now, which may have moved
/// since the link was made; see `ContinuityNode.listenerRotationGrace`), makes a second
/// mutually authenticated TLS connection to it with ALPN `baton-stream/1`, and sends the token
/// first. The originating side checks
/// that the token is one it granted to that very device, answers one acceptance byte, and
/// hands the connection to the activity's delegate as a pair of streams. The continuing side
/// returns the streams only once that byte has arrived, so a stream that cannot be opened or
/// is refused fails with an error instead of reading as an empty stream.
extension ContinuityNode {
    /// Token size (`StreamGrants.tokenSize`).
    static let streamTokenSize = StreamGrants.tokenSize
    /// What the originating side sends once it has accepted a stream connection's token.
    static let streamAcceptance: UInt8 = 1

    /// How many stream grants are held now (each capped: see `maximumStreamGrantsPerPeer`).
    public var streamGrantCount: Int { grants.count }

    /// An incoming stream connection: its first bytes are the token, which must arrive within
    /// the listener's handshake deadline. A token this device did not grant to that peer closes
    /// the connection; a granted one is answered with the acceptance byte.
    func acceptStreams(_ channel: SecureChannel) async {
        var token = Data()
        do {
            while token.count < Self.streamTokenSize {
                let chunk = try await channel.receive(maxLength: Self.streamTokenSize - token.count)
                guard !chunk.isEmpty else { return channel.close() }
                token.append(chunk)
            }
        } catch {
            return log.notice("a stream connection from \(trust.name(of: channel.peerIdentifier)) failed before its token: \(error)")
        }
        guard channel.isWithinDeadline else { return channel.close() }
        channel.authenticated()
        guard let grant = grants.remove(token), grant.peer == channel.peerIdentifier else {
            log.notice("refused a stream connection from \(trust.name(of: channel.peerIdentifier)): not a token granted to it")
            return channel.close()
        }
        let activity = grant.activity
        guard provider.canOpenStreams(for: activity) else { return channel.close() }
        let streams = StreamChannel(channel, idleTimeout: streamIdleTimeout)
        do { try await streams.write(Data([Self.streamAcceptance])) } catch {
            return log.notice("a stream connection from \(trust.name(of: channel.peerIdentifier)) failed before it opened: \(error)")
        }
        log.debug("streams open to \(trust.name(of: channel.peerIdentifier)) for \(activity.activityType)")
        provider.acceptStreams(streams, for: activity)
    }

    /// On the continuing side: a stream channel to `activity` on its device, once that device
    /// has accepted it. Fails with `userActivityRemoteApplicationTimedOut` when the connection
    /// is not open and accepted within `streamAcceptanceTimeout`, `userActivityHandoffFailed`
    /// when the device refuses it, `userActivityConnectionUnavailable` when it cannot be made.
    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        let (grant, link) = try await callDevice(activity.device) { bus in try await bus.call(.openStreams(sequence: activity.sequence)) }
        guard let host = link.host ?? link.dialed?.host else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "no address for \(activity.device)"])
        }
        let token = grant.token
        guard token.count == Self.streamTokenSize, let validPort = UInt16(exactly: grant.port), validPort > 0 else {
            throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: "malformed OpenStreams reply"])
        }
        trust.syncRevocationsFromDisk()
        let identity = trust.identity, credential = credential, idle = streamIdleTimeout, timeout = streamAcceptanceTimeout
        var timedOut = false
        let opening = Task { @MainActor () throws -> StreamChannel in
            let channel = try await SecureChannel.connect(host: host, port: validPort, identity: identity, credential: credential,
                                                          applicationProtocol: SecureChannel.streamALPN)
            guard channel.peerIdentifier == link.id else {
                channel.close()
                throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey:
                    "the stream port of \(activity.device) answered as \(trust.name(of: channel.peerIdentifier))"])
            }
            let streams = StreamChannel(channel, idleTimeout: idle)
            do {
                try await streams.write(token)
                let answer = try await streams.read(maxLength: 1)
                guard answer == Data([Self.streamAcceptance]) else {
                    channel.close()
                    throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey:
                        "\(activity.device) refused the stream connection"])
                }
            } catch {
                channel.abort()
                throw error
            }
            return streams
        }
        let deadline = MainLoop.after(timeout) {
            timedOut = true
            opening.cancel()
        }
        defer { deadline.cancel() }
        do {
            return try await opening.loopValue()
        } catch {
            if timedOut {
                throw CocoaError(.userActivityRemoteApplicationTimedOut, userInfo: [NSLocalizedDescriptionKey:
                    "\(activity.device) did not accept the stream connection within \(timeout)"])
            }
            if let error = error as? CocoaError { throw error }
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }
}
