import Foundation
import Synchronization

/// A continuation stream channel that counts the bytes written through it (`sent`) and read
/// through it (`received`) and, once, when the streams have ended, tells `ended` both counts:
/// the originating side's record of a continuation (`ContinuationStep.Kind.streamsEnded`), as
/// the continuing side's agent records the bytes its relay moved.
///
/// The streams have ended when both directions have (a read returned the end or failed, and
/// this side finished writing or a write failed), when the channel is closed or aborted, or,
/// failing all that, when it is released. Reads and writes pass straight through, on the
/// caller's actor; counting costs an add under a lock per read or write.
package final class CountingStreamChannel: ContinuationStreamChannel {
    /// Told the bytes sent and received once the streams have ended.
    package typealias Ended = @MainActor @Sendable (_ sent: Int, _ received: Int) -> Void

    private struct State {
        var sent = 0
        var received = 0
        var readEnded = false
        var writeEnded = false
        var ended: Ended?
    }

    private let channel: any ContinuationStreamChannel
    private let state: Mutex<State>

    /// `channel`, counted; `ended` is called once, on the main actor, when its streams end.
    package init(_ channel: any ContinuationStreamChannel, ended: @escaping Ended) {
        self.channel = channel
        state = Mutex(State(ended: ended))
    }

    deinit {
        let (ended, sent, received) = state.withLock { ($0.ended, $0.sent, $0.received) }
        if let ended { Task { @MainActor in ended(sent, received) } }
    }

    nonisolated(nonsending) package func read(maxLength: Int) async throws -> Data {
        do {
            let data = try await channel.read(maxLength: maxLength)
            let finished = state.withLock { state -> Finished? in
                state.received += data.count
                if data.isEmpty { state.readEnded = true }
                return Self.finished(&state)
            }
            await report(finished)
            return data
        } catch {
            await report(state.withLock { state in
                state.readEnded = true
                return Self.finished(&state)
            })
            throw error
        }
    }

    nonisolated(nonsending) package func write(_ data: Data) async throws {
        do {
            try await channel.write(data)
            state.withLock { $0.sent += data.count }
        } catch {
            await report(state.withLock { state in
                state.writeEnded = true
                return Self.finished(&state)
            })
            throw error
        }
    }

    nonisolated(nonsending) package func finishWriting() async throws {
        do {
            try await channel.finishWriting()
        } catch {
            await report(state.withLock { state in
                state.writeEnded = true
                return Self.finished(&state)
            })
            throw error
        }
        await report(state.withLock { state in
            state.writeEnded = true
            return Self.finished(&state)
        })
    }

    package func close() {
        channel.close()
        endNow()
    }

    package func abort() {
        channel.abort()
        endNow()
    }

    /// The counts and whom to tell, once both directions have ended (and only the first time).
    private typealias Finished = (ended: Ended, sent: Int, received: Int)

    private static func finished(_ state: inout State) -> Finished? {
        guard state.readEnded, state.writeEnded, let ended = state.ended else { return nil }
        state.ended = nil
        return (ended, state.sent, state.received)
    }

    nonisolated(nonsending) private func report(_ finished: Finished?) async {
        guard let finished else { return }
        await finished.ended(finished.sent, finished.received)
    }

    /// Closed or aborted: the streams have ended, whatever each direction had done.
    private func endNow() {
        let finished = state.withLock { state -> Finished? in
            state.readEnded = true
            state.writeEnded = true
            return Self.finished(&state)
        }
        guard let finished else { return }
        if Thread.isMainThread {
            MainActor.assumeIsolated { finished.ended(finished.sent, finished.received) }
        } else {
            Task { @MainActor in finished.ended(finished.sent, finished.received) }
        }
    }
}
