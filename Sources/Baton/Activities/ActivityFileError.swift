/// Why a handoff file (`ActivityFile`) was refused; each case names the file.
public enum ActivityFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is larger than any handoff file can be; refused from its size, before any
    /// byte of it is read.
    case tooLarge(path: String, size: Int, limit: Int)
    /// The file cannot be opened or read; `reason` is the system's.
    case unreadable(path: String, reason: String)
    /// The bytes are not a handoff file: `reason` says what is wrong.
    case notAHandoffFile(path: String, reason: String)
    /// The file was written by a newer Baton.
    case unsupportedVersion(path: String, version: UInt32)

    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .tooLarge(let path, let size, let limit):
            "\(shown(path)) is \(size) bytes; a handoff file is at most \(limit) bytes, so it was not read"
        case .unreadable(let path, let reason): "cannot read \(shown(path)): \(reason)"
        case .notAHandoffFile(let path, let reason): "\(shown(path)) is not a handoff file: \(reason)"
        case .unsupportedVersion(let path, let version): "\(shown(path)) is a handoff file of version \(version), newer than this Baton reads"
        }
    }
}
