import Baton
import BatonContinuity
import BatonLoop
import Foundation
import Logging

/// Continuation streams through the agent. A stream to another device is a TLS connection
/// the agent made (its keys stay in the agent), so the agent relays: it gives the app a one-time
/// token over D-Bus, the app opens a second connection to the agent's socket whose first byte is
/// `S` followed by the token, and the agent copies bytes both ways between that connection and
/// the device's stream channel (whose idle bound applies) until both ends have finished.
///
/// The device's stream is opened pipelined (`ContinuityNode.openStreams`): the token goes to the
/// app before the other device has answered, so the app's request follows the open through the
/// agent without waiting for it. If the device then refuses the open, the app reads the Handoff
/// code of the refusal (a failure frame, `LocalStream.fail(reporting:)`).
///
/// From interface version 6 the app↔agent hop is pipelined too (`OpenStreamsPipelined`): the
/// app picks the token, sends the call and at once opens its stream connection with
/// `pipelinedMarker` and the token, and writes, without waiting for the reply. The connection
/// may then come before the call (`connect`: it waits, at most `maximumWaiting` of them for at
/// most `tokenLifetime`) or after it (`attach`); the two are relayed once both are here. If the
/// call fails, the connection gets the failure's Handoff code (`refuse`).
@MainActor
final class StreamRelay {
    static let tokenSize = 32
    /// What a stream connection starts with (D-Bus clients send NUL first): `marker` for a
    /// token the agent gave, `pipelinedMarker` for one the app picked (`OpenStreamsPipelined`).
    static let marker = UInt8(ascii: "S")
    static let pipelinedMarker = UInt8(ascii: "P")
    /// How long a token waits for its connection (or a pipelined connection for its call), and
    /// how many wait at once (of each).
    var tokenLifetime: Duration = .seconds(30)
    var maximumWaiting = 32
    /// Told the bytes relayed toward the device's channel and from it, once a relay ends.
    typealias Ended = @MainActor (_ sent: Int, _ received: Int) -> Void
    private var waiting: [(token: Data, channel: any ContinuationStreamChannel, expiry: LoopSource, ended: Ended?)] = []
    /// Pipelined connections whose `OpenStreamsPipelined` call has not been answered yet.
    private var early: [(token: Data, local: LocalStream, expiry: LoopSource)] = []
    /// The last tokens whose `OpenStreamsPipelined` failed, with the failure: a connection that
    /// comes after it reads the code at once instead of waiting out its lifetime.
    private var refused: [(token: Data, error: CocoaError)] = []
    private var running: [ObjectIdentifier: LocalStream] = [:]
    /// Stream connections refused for a token that was not waiting (only the first is logged).
    private(set) var refusedConnections = 0
    let log = Logger(label: "baton.agent")

    /// A token for `channel`; the app's connection with it is relayed to `channel`. `ended`, if
    /// given, is told the bytes relayed toward `channel` and from it once the relay ends.
    func expect(_ channel: any ContinuationStreamChannel, ended: Ended? = nil) -> Data {
        let token = Self.randomToken()
        hold(channel, token: token, ended: ended)
        return token
    }

    /// `tokenSize` random bytes.
    static func randomToken() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<tokenSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// `channel` waits (at most `tokenLifetime`) for the connection that sends `token`.
    private func hold(_ channel: any ContinuationStreamChannel, token: Data, ended: Ended?) {
        while waiting.count >= maximumWaiting, let oldest = waiting.first { cancel(oldest.token) }
        let expiry = MainLoop.after(tokenLifetime) { [weak self] in self?.cancel(token) }
        waiting.append((token, channel, expiry, ended))
    }

    /// The app's `OpenStreamsPipelined` with `token` opened `channel`: relayed to the app's
    /// connection with that token, now if it came first, else when it comes. False (and nothing
    /// kept) if `token` is not `tokenSize` bytes or is already waiting. `ended` as for `expect`.
    func attach(_ channel: any ContinuationStreamChannel, token: Data, ended: Ended? = nil) -> Bool {
        guard token.count == Self.tokenSize, !waiting.contains(where: { Self.same($0.token, token) }) else { return false }
        if let index = early.firstIndex(where: { Self.same($0.token, token) }) {
            let entry = early.remove(at: index)
            entry.expiry.cancel()
            relay(entry.local, to: channel, ended: ended)
        } else {
            hold(channel, token: token, ended: ended)
        }
        return true
    }

    /// The app's `OpenStreamsPipelined` with `token` failed with `error`: its connection reads
    /// that Handoff code (a failure frame) and is closed, now if it came, or when it comes.
    func refuse(_ token: Data, with error: CocoaError) {
        if let index = early.firstIndex(where: { Self.same($0.token, token) }) {
            let entry = early.remove(at: index)
            entry.expiry.cancel()
            Task { await entry.local.fail(reporting: error) }
            return
        }
        if refused.count >= 8 { refused.removeFirst() }
        refused.append((token, error))
    }

    func cancel(_ token: Data) {
        guard let index = waiting.firstIndex(where: { Self.same($0.token, token) }) else { return }
        let entry = waiting.remove(at: index)
        entry.expiry.cancel()
        entry.channel.close()
    }

    /// An app's stream connection that sent `marker` and `token`: relayed if its channel is
    /// waiting; a pipelined one (`pipelinedMarker`) whose call has not come yet waits for it
    /// (`attach`); otherwise closed.
    func connect(_ local: LocalStream, marker: UInt8 = StreamRelay.marker, token: Data) {
        if let index = waiting.firstIndex(where: { Self.same($0.token, token) }) {
            let entry = waiting.remove(at: index)
            entry.expiry.cancel()
            return relay(local, to: entry.channel, ended: entry.ended)
        }
        guard marker == Self.pipelinedMarker, token.count == Self.tokenSize,
              !early.contains(where: { Self.same($0.token, token) }) else {
            refusedConnections += 1
            if refusedConnections == 1 { log.notice("refused a stream connection: not a token the agent gave (more are counted, not logged)") }
            return local.close()
        }
        if let index = refused.firstIndex(where: { Self.same($0.token, token) }) {
            let error = refused.remove(at: index).error
            Task { await local.fail(reporting: error) }
            return
        }
        while early.count >= maximumWaiting, let oldest = early.first { dropEarly(oldest.token) }
        let expiry = MainLoop.after(tokenLifetime) { [weak self] in self?.dropEarly(token) }
        early.append((token, local, expiry))
    }

    /// A pipelined connection that waited too long for its call (or was pushed out): closed.
    private func dropEarly(_ token: Data) {
        guard let index = early.firstIndex(where: { Self.same($0.token, token) }) else { return }
        let entry = early.remove(at: index)
        entry.expiry.cancel()
        entry.local.close()
    }

    /// Copies both ways between the app's connection `local` and the device's `channel` until
    /// both have ended, then closes both and tells `ended` the bytes each way.
    private func relay(_ local: LocalStream, to channel: any ContinuationStreamChannel, ended: Ended?) {
        let key = ObjectIdentifier(local)
        running[key] = local
        Task { @MainActor [weak self] in
            // With the loop preferred, the two copies and the wait for them stay on the loop
            // thread (a child task would otherwise start, and its end resume this one, on Swift's pool).
            let bytes = await withTaskExecutorPreference(LoopTaskExecutor.shared) { @MainActor in
                async let up = Self.copy(from: local, to: channel, app: local)
                async let down = Self.copy(from: channel, to: local, app: local)
                return await (up, down)
            }
            channel.close()
            local.close()
            self?.running[key] = nil
            ended?(bytes.0, bytes.1)
        }
    }

    /// How much one turn of a copy moves at most: whatever has arrived, up to four frames.
    static let chunk = LocalStream.batch * LocalStream.piece

    /// Copies `source` to `destination` until its end, then finishes `destination`'s writing;
    /// on an error both are broken (`abort()`: the far side reads a failure, never an end), and
    /// the other direction then ends too. It runs on the loop thread from start to end (the
    /// channels' reads and writes run on their caller's actor), taking each time all that has
    /// arrived, up to `chunk`: several TLS records or frames in one turn. Returns the bytes copied.
    ///
    /// A Handoff error of the device's stream (the device refused an open the app had already
    /// written to: `LinkStream`) goes to the app's connection `app` as a failure frame first, so
    /// the app's reads throw that code, as they do in an app that runs its own node.
    private static func copy(from source: any ContinuationStreamChannel, to destination: any ContinuationStreamChannel,
                             app: LocalStream) async -> Int {
        var failing: any ContinuationStreamChannel = source
        var copied = 0
        do {
            while true {
                failing = source
                let chunk = try await source.read(maxLength: chunk)
                if chunk.isEmpty { break }
                failing = destination
                try await destination.write(chunk)
                copied += chunk.count
            }
            failing = destination
            try await destination.finishWriting()
        } catch {
            if failing !== app, let coded = error as? CocoaError { await app.fail(reporting: coded) }
            source.abort()
            destination.abort()
        }
        return copied
    }

    func closeAll() {
        for entry in waiting {
            entry.expiry.cancel()
            entry.channel.close()
        }
        waiting = []
        for entry in early {
            entry.expiry.cancel()
            entry.local.close()
        }
        early = []
        refused = []
        for local in running.values { local.close() }
    }

    private static func same(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
