import Foundation

/// The seed corpus of a fuzz target, made by Baton's own encoders.
///
/// Every target calls `writeIfAsked` from `LLVMFuzzerInitialize`: with `BATON_FUZZ_SEEDS=DIR`
/// in the environment it writes its seeds there, one file each, and exits instead of fuzzing
/// (`scripts/fuzz.sh seeds` fills `Fuzz/Corpus/<target>/` this way).
public enum FuzzSeeds {
    public static func writeIfAsked(_ seeds: () throws -> [String: Data]) {
        guard let directory = ProcessInfo.processInfo.environment["BATON_FUZZ_SEEDS"] else { return }
        do {
            let url = URL(fileURLWithPath: directory, isDirectory: true)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for (name, bytes) in try seeds() {
                try bytes.write(to: url.appendingPathComponent(name), options: .atomic)
            }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("fuzz: cannot write the seeds to \(directory): \(error)\n".utf8))
            exit(1)
        }
    }
}

/// What every fuzz target does before its first input.
public enum FuzzSetup {
    /// Refusals the decoders log go nowhere: the fuzzer's output stays its own.
    public static func quietLogs() {
        LoggingBootstrap.once
    }
}

import Logging

private enum LoggingBootstrap {
    static let once: Void = LoggingSystem.bootstrap { _ in SwiftLogNoOpLogHandler() }
}
