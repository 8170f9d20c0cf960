import Foundation

/// The executables the bench starts: itself (in one of its modes) and the `batond` built
/// beside it (`make bench` builds both in release).
enum BenchProducts {
    /// This executable, for its modes (`--agent-app-mode`, `--continuer-mode`, …).
    static var bench: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath() }

    /// `batond` beside this executable; throws if it is not built.
    static func batond() throws -> URL {
        let batond = bench.deletingLastPathComponent().appendingPathComponent("batond")
        guard FileManager.default.isExecutableFile(atPath: batond.path) else {
            throw BenchFailure("batond is not built beside BatonBench (swift build -c release --product batond)")
        }
        return batond
    }
}
