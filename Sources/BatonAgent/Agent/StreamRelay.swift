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
@MainActor
final class StreamRelay {
    static let tokenSize = 32
    /// What a stream connection starts with (D-Bus clients send NUL first).
    static let marker = UInt8(ascii: "S")
    /// How long a token waits for its connection, and how many wait at once.
    var tokenLifetime: Duration = .seconds(30)
    var maximumWaiting = 32
    private var waiting: [(token: Data, channel: any ContinuationStreamChannel, expiry: LoopSource,
                           ended: (@MainActor (Int, Int) -> Void)?)] = []
    private var running: [ObjectIdentifier: LocalStream] = [:]
    /// Stream connections refused for a token that was not waiting (only the first is logged).
    private(set) var refusedConnections = 0
    let log = Logger(label: "baton.agent")

    /// A token for `channel`; the app's connection with it is relayed to `channel`. `ended`, if
    /// given, is told the bytes relayed toward `channel` and from it once the relay ends.
    func expect(_ channel: any ContinuationStreamChannel, ended: (@MainActor (Int, Int) -> Void)? = nil) -> Data {
        while waiting.count >= maximumWaiting, let oldest = waiting.first { cancel(oldest.token) }
        var generator = SystemRandomNumberGenerator()
        let token = Data((0..<Self.tokenSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let expiry = MainLoop.after(tokenLifetime) { [weak self] in self?.cancel(token) }
        waiting.append((token, channel, expiry, ended))
        return token
    }

    func cancel(_ token: Data) {
        guard let index = waiting.firstIndex(where: { Self.same($0.token, token) }) else { return }
        let entry = waiting.remove(at: index)
        entry.expiry.cancel()
        entry.channel.close()
    }

    /// An app's stream connection that sent `token`: relayed, or closed if the token is not one waiting.
    func connect(_ local: LocalStream, token: Data) {
        guard let index = waiting.firstIndex(where: { Self.same($0.token, token) }) else {
            refusedConnections += 1
            if refusedConnections == 1 { log.notice("refused a stream connection: not a token the agent gave (more are counted, not logged)") }
            return local.close()
        }
        let entry = waiting.remove(at: index)
        entry.expiry.cancel()
        let channel = entry.channel
        let ended = entry.ended
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
        for local in running.values { local.close() }
    }

    private static func same(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
