import Baton
import BatonLoop
import Foundation

/// A continuation stream connection the originating device has agreed to: from `peer` (a
/// device identifier), to `activity`, with `token`, until `expiry`.
struct StreamGrant {
    let token: Data
    let peer: String
    let activity: ProvidedActivity
    let expiry: LoopSource
}

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
    /// Token size, and how long a grant waits for its connection.
    static let streamTokenSize = 32
    static let streamGrantLifetime: Duration = .seconds(30)
    /// What the originating side sends once it has accepted a stream connection's token.
    static let streamAcceptance: UInt8 = 1

    /// How many stream grants are held now (each capped: see `streamGrant(sequence:for:)`).
    public var streamGrantCount: Int { streamGrants.count }

    /// A one-time token for a stream connection from `peer`. At most
    /// `maximumStreamGrantsPerPeer` grants wait per peer and `maximumStreamGrants` in all: a
    /// new grant past either cap replaces the oldest (of that peer, for the first), so a peer
    /// that asks again and again only churns its own grants. A grant not used within 30 s is
    /// forgotten. The port returned is the current listener's; a listener replaced at a port
    /// rotation still accepts the grant during its grace (grants are the node's, not a
    /// listener's).
    func streamGrant(sequence: UInt64, for peer: String) throws(DeviceServiceError) -> (token: Data, port: UInt16) {
        guard let listener, let advertised, advertised.sequence == sequence, let activity = providedActivity else {
            throw .notCurrent
        }
        guard activity.supportsContinuationStreams, provider.canOpenStreams(for: activity) else {
            throw .noStreams("\(activity.activityType) does not support continuation streams")
        }
        if let oldest = streamGrants.first(where: { $0.peer == peer }),
           streamGrants.count(where: { $0.peer == peer }) >= maximumStreamGrantsPerPeer {
            removeStreamGrant(oldest.token)
        }
        while streamGrants.count >= maximumStreamGrants, let oldest = streamGrants.first { removeStreamGrant(oldest.token) }
        var generator = SystemRandomNumberGenerator()
        let token = Data((0..<Self.streamTokenSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let expiry = MainLoop.after(Self.streamGrantLifetime) { [weak self] in self?.removeStreamGrant(token) }
        streamGrants.append(StreamGrant(token: token, peer: peer, activity: activity, expiry: expiry))
        return (token, listener.port)
    }

    @discardableResult
    func removeStreamGrant(_ token: Data) -> StreamGrant? {
        guard let index = streamGrants.firstIndex(where: { Self.sameToken($0.token, token) }) else { return nil }
        let grant = streamGrants.remove(at: index)
        grant.expiry.cancel()
        return grant
    }

    /// Compares two tokens in time that does not depend on where they differ.
    private static func sameToken(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

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
            return log.notice("a stream connection from \(identity.deviceName(of: channel.peerIdentifier)) failed before its token: \(error)")
        }
        guard channel.isWithinDeadline else { return channel.close() }
        channel.authenticated()
        guard let grant = removeStreamGrant(token), grant.peer == channel.peerIdentifier else {
            log.notice("refused a stream connection from \(identity.deviceName(of: channel.peerIdentifier)): not a token granted to it")
            return channel.close()
        }
        let activity = grant.activity
        guard provider.canOpenStreams(for: activity) else { return channel.close() }
        let streams = StreamChannel(channel, idleTimeout: streamIdleTimeout)
        do { try await streams.write(Data([Self.streamAcceptance])) } catch {
            return log.notice("a stream connection from \(identity.deviceName(of: channel.peerIdentifier)) failed before it opened: \(error)")
        }
        log.debug("streams open to \(identity.deviceName(of: channel.peerIdentifier)) for \(activity.activityType)")
        provider.acceptStreams(streams, for: activity)
    }

    /// On the continuing side: a stream channel to `activity` on its device, once that device
    /// has accepted it. Fails with `userActivityRemoteApplicationTimedOut` when the connection
    /// is not open and accepted within `streamAcceptanceTimeout`, `userActivityHandoffFailed`
    /// when the device refuses it, `userActivityConnectionUnavailable` when it cannot be made.
    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        let (reply, link) = try await callDevice(activity.device, "OpenStreams", .tuple([.uint64(activity.sequence)]), replyType: "(ayu)")
        guard let host = link.host ?? link.dialed?.host else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "no address for \(activity.device)"])
        }
        guard case .tuple(let items) = reply, items.count == 2, case .bytes(let token) = items[0], token.count == Self.streamTokenSize,
              case .uint32(let port) = items[1], let validPort = UInt16(exactly: port), validPort > 0 else {
            throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: "malformed OpenStreams reply"])
        }
        let identity = currentIdentity(), credential = credential, idle = streamIdleTimeout, timeout = streamAcceptanceTimeout
        var timedOut = false
        let opening = Task { @MainActor () throws -> StreamChannel in
            let channel = try await SecureChannel.connect(host: host, port: validPort, identity: identity, credential: credential,
                                                          applicationProtocol: SecureChannel.streamALPN)
            guard channel.peerIdentifier == link.id else {
                channel.close()
                throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey:
                    "the stream port of \(activity.device) answered as \(identity.deviceName(of: channel.peerIdentifier))"])
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
