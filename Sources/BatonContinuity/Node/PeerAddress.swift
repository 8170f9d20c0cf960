import Foundation

/// A peer to dial: `host:port`, from the static peer list — for hosts without multicast, or
/// where no avahi-daemon runs.
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    /// A host name, or an IPv4 or IPv6 address (without brackets).
    public var host: String
    /// The TCP port; 0 only where listening on any free port is meant.
    public var port: UInt16

    /// The address `host:port`, taken as given (`init(parsing:from:)` checks text).
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (`[v6]:port` for IPv6); nil if it is not one. See
    /// `init(parsing:from:)` for the reason.
    public init?(_ text: String) {
        guard let address = try? PeerAddress(parsing: text, from: .argument("peer")) else { return nil }
        self = address
    }

    /// Parses `host:port`, or `[v6]:port` for an IPv6 address. The port is 1–65535, or
    /// 0–65535 with `portZeroAllowed` (for listening: 0 takes any free port). With
    /// `defaultHost`, a bare `PORT` is taken as `defaultHost:PORT`. Throws an error that
    /// names `text` and where it came from.
    public init(parsing text: String, from source: PeerAddressError.Source,
                portZeroAllowed: Bool = false, defaultHost: String? = nil) throws(PeerAddressError) {
        let entry = text.trimmingCharacters(in: .whitespaces)
        let hostText: Substring, portText: Substring
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { throw .malformed(text: text, source: source, problem: "the '[' of an IPv6 address has no ']'") }
            hostText = entry[entry.index(after: entry.startIndex)..<close]
            let rest = entry[entry.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .malformed(text: text, source: source, problem: "no ':PORT' after the address") }
            portText = rest.dropFirst()
            guard !hostText.isEmpty, hostText.allSatisfy({ $0.isHexDigit || ":.%".contains($0) || $0.isLetter || $0.isNumber }) else {
                throw .malformed(text: text, source: source, problem: "'\(PrintableText.escaped(String(hostText)))' is not an IPv6 address")
            }
        } else if let colon = entry.lastIndex(of: ":") {
            hostText = entry[..<colon]
            portText = entry[entry.index(after: colon)...]
            guard !hostText.contains(":") else {
                throw .malformed(text: text, source: source, problem: "an IPv6 address is written in brackets, as [::1]:7300")
            }
            guard !hostText.isEmpty else { throw .missingHost(text: text, source: source) }
        } else if let defaultHost, !entry.isEmpty, entry.allSatisfy(\.isASCII), entry.allSatisfy(\.isNumber) {
            hostText = Substring(defaultHost)
            portText = Substring(entry)
        } else {
            throw entry.isEmpty ? .malformed(text: text, source: source, problem: "it is empty")
                : .missingPort(text: text, source: source)
        }
        guard !portText.isEmpty else { throw .missingPort(text: text, source: source) }
        guard portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(portText),
              number <= 65535, number > 0 || portZeroAllowed else {
            throw .badPort(text: text, source: source, portZeroAllowed: portZeroAllowed)
        }
        let host = String(hostText)
        guard PrintableText.isPrintable(host), !host.contains(where: { $0.isWhitespace || "/?#@[]".contains($0) }) else {
            throw .malformed(text: text, source: source, problem: "'\(PrintableText.escaped(host))' is not a host name or address")
        }
        self.init(host: host, port: UInt16(number))
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The host that means every interface, IPv6 and IPv4 alike (one dual-stack socket; IPv4
    /// only on a system without IPv6).
    public static let allInterfaces = "::"
    /// Where a device listens unless told otherwise: every interface, any free port. The
    /// admission gate and mutual TLS keep strangers out, not the address.
    public static let network = PeerAddress(host: allInterfaces, port: 0)
    /// Loopback only, any free port: a device the other machines cannot reach (`--local`,
    /// `Listen=127.0.0.1:0`, and tests).
    public static let loopback = PeerAddress(host: "127.0.0.1", port: 0)

    /// Whether `host` is a loopback address (or `localhost`): listening there, the device is
    /// reachable from this machine only.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// Whether this is the address of every interface (`::` or `0.0.0.0`).
    public var isAllInterfaces: Bool { host == Self.allInterfaces || host == "0.0.0.0" }

    /// The static peers: `$BATON_PEERS` (comma-separated), else the file `peers` in the config
    /// directory (one per line, `#` starts a comment, blank lines are skipped). An entry that
    /// is not `host:port`, or a file that exists but cannot be read, throws an error naming
    /// it (and its line): nothing is skipped silently.
    public static func configured(in directory: ConfigDirectory = .standard(),
                                  environment: [String: String] = ProcessInfo.processInfo.environment) throws(PeerAddressError) -> [PeerAddress] {
        if let list = environment["BATON_PEERS"] {
            var peers: [PeerAddress] = []
            for (index, entry) in list.split(separator: ",", omittingEmptySubsequences: false).enumerated()
            where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
                peers.append(try PeerAddress(parsing: String(entry), from: .environment(entry: index + 1)))
            }
            return peers
        }
        let file = directory.url.appendingPathComponent("peers")
        let data: Data
        do { data = try SecureFiles.read(file) } catch {
            switch error {
            case .missingFile: return []
            case .unreadable(_, let reason): throw .unreadableFile(path: file.path, reason: reason)
            default: throw .unreadableFile(path: file.path, reason: "\(error)")
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .unreadableFile(path: file.path, reason: "it is not UTF-8 text")
        }
        var peers: [PeerAddress] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let entry = String(line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            guard !entry.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            peers.append(try PeerAddress(parsing: entry, from: .file(path: file.path, line: index + 1)))
        }
        return peers
    }
}
