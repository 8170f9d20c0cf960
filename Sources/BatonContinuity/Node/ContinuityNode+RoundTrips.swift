import BatonLoop
import Foundation

extension ContinuityNode {
    /// How long `roundTrips()` waits for each linked device by default.
    nonisolated public static let roundTripDeadline: Duration = .seconds(2)

    /// The round-trip time of each link now, by device name: one D-Bus `Ping` over each link,
    /// all at once, each bounded by `deadline`. A link that does not answer within it is left
    /// out. Asked for (by `baton status` and `baton inspect`), never on a timer: a link nobody
    /// looks at costs nothing. Published as `roundTripsMeasured` once all have answered or timed out.
    public func roundTrips(within deadline: Duration = ContinuityNode.roundTripDeadline) async -> [String: Duration] {
        let pings = links.all.map { link in
            let bus = link.bus
            return (links.name(of: link), Task { @MainActor () -> Duration? in
                let start = ContinuousClock.now
                do { try await bus.ping(timeout: deadline) } catch { return nil }
                return ContinuousClock.now - start
            })
        }
        var times: [String: Duration] = [:]
        for (name, ping) in pings {
            if let time = await ping.value { times[name] = time }
        }
        diagnostics.publish(.roundTripsMeasured(links: pings.count, answered: times.count))
        return times
    }
}
