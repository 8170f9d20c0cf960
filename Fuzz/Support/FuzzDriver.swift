import CLibFuzzer
import Foundation

/// Runs libFuzzer from a fuzz target's own `main`.
///
/// SwiftPM links every executable with `main` bound to the module's entry point, so a target
/// cannot rely on the `main` in libFuzzer's runtime; each target's top-level code calls this
/// instead, with its `LLVMFuzzerTestOneInput`. libFuzzer's flags and corpus folders come from
/// the command line as usual.
public enum FuzzDriver {
    public static func run(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        let status = withUnsafeMutablePointer(to: &argv) { LLVMFuzzerRunDriver(&argc, $0, test) }
        exit(status)
    }
}
