import Foundation

/// libFuzzer's input, and the checks a fuzz target makes on what a decoder accepted.
public enum FuzzInput {
    /// The input as `Data` (a copy: decoders may keep it).
    public static func data(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Data {
        guard let bytes, count > 0 else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Fails the run (libFuzzer saves the input) when a decoder broke a promise.
    public static func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                               file: StaticString = #fileID, line: UInt = #line) {
        if !condition() { fatalError("fuzz: \(message())", file: file, line: line) }
    }
}
