import Baton
import BatonContinuity
import Foundation

/// `BatonBench --quick`: issue 30's figures in under two minutes, each beside its baseline from
/// the same run, so a developer checks a change before landing it: payload coding, one-shot
/// `MainLoop.idle`, the main actor's and the main queue's chains, the cross-thread
/// `MainActor.run`, the cold continuation, and a mutual TLS 1.3 handshake through GIO beside
/// OpenSSL's (`HandshakeBenchmarks.quickHandshakes` each).
@MainActor
enum QuickBenchmarks {
    /// Cold continuations measured by `--quick` (the full run takes `ContinuityBenchmarks.coldRuns`).
    static let coldRuns = 10

    /// Measures the loop's rows (`LoopBenchmarks.runAlone`), then the coding, handshake and
    /// cold-continuation rows, prints them all; the `dispatchMain()` baselines come last and end
    /// the process.
    static func run() -> Never {
        say("Baton quick benchmarks (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores); lower is better")
        LoopBenchmarks.runAlone {
            var figures = ActivityBenchmarks.codingFigures()
            do { figures.append(try HandshakeBenchmarks.handshakeFigure(count: HandshakeBenchmarks.quickHandshakes)) } catch {
                say("handshake failed: \(error)")
            }
            do {
                figures += ContinuityBenchmarks.coldFigures(try ContinuityBenchmarks.coldOnly(runs: coldRuns))
            } catch {
                say("cold continuation failed: \(error)")
            }
            return figures
        }
    }
}
