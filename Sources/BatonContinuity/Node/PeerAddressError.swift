/// Why a peer address or the list of configured peers was refused; each case names the
/// value and where it came from.
public enum PeerAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where a value came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// The `n`th comma-separated entry of `$BATON_PEERS`.
        case environment(entry: Int)
        /// A line of the `peers` file.
        case file(path: String, line: Int)
        /// The command-line option `--name`.
        case argument(String)

        public var description: String {
            switch self {
            case .environment(let entry): "entry \(entry) of $BATON_PEERS"
            case .file(let path, let line): "\(PrintableText.escaped(path)) line \(line)"
            case .argument(let name): "--\(name)"
            }
        }
    }

    /// A port that is not a number, or out of range (1–65535, or 0–65535 where 0 is allowed).
    case badPort(text: String, source: Source, portZeroAllowed: Bool)
    /// `text` has no `:PORT`.
    case missingPort(text: String, source: Source)
    /// `text` has no host before `:PORT` where one is needed.
    case missingHost(text: String, source: Source)
    /// `text` is not `HOST:PORT` for the reason `problem` (an unclosed `[`, a space, …).
    case malformed(text: String, source: Source, problem: String)
    /// The peers file exists but could not be read.
    case unreadableFile(path: String, reason: String)
    /// An option given without its value.
    case missingValue(option: String)

    public var description: String {
        switch self {
        case .badPort(let text, let source, let zero):
            "'\(PrintableText.escaped(text))' (\(source)) is not HOST:PORT: the port must be a number from \(zero ? 0 : 1) to 65535"
        case .missingPort(let text, let source): "'\(PrintableText.escaped(text))' (\(source)) is not HOST:PORT: it has no port"
        case .missingHost(let text, let source): "'\(PrintableText.escaped(text))' (\(source)) is not HOST:PORT: it has no host"
        case .malformed(let text, let source, let problem): "'\(PrintableText.escaped(text))' (\(source)) is not HOST:PORT: \(problem)"
        case .unreadableFile(let path, let reason): "cannot read the peers file \(PrintableText.escaped(path)): \(reason)"
        case .missingValue(let option): "\(option) needs a value"
        }
    }
}
