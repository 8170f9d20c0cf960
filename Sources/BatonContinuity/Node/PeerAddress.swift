import Foundation

/// A peer to dial: `host:port`, from the static peer list — for hosts without multicast, or
/// where no avahi-daemon runs.
public struct PeerAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port` (`[v6]:port` for IPv6); nil if it is not one.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let colon = trimmed.lastIndex(of: ":"), let port = UInt16(trimmed[trimmed.index(after: colon)...]), port > 0 else { return nil }
        var host = String(trimmed[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The static peers: `$BATON_PEERS` (comma-separated), else the file `peers` in the config
    /// directory (one per line, `#` starts a comment). Entries that do not parse are skipped.
    public static func configured(in directory: ConfigDirectory = .standard(),
                                  environment: [String: String] = ProcessInfo.processInfo.environment) -> [PeerAddress] {
        let text: String
        if let list = environment["BATON_PEERS"] {
            text = list.replacingOccurrences(of: ",", with: "\n")
        } else if let file = try? String(contentsOf: directory.url.appendingPathComponent("peers"), encoding: .utf8) {
            text = file
        } else {
            return []
        }
        return text.split(separator: "\n").compactMap { line in
            let entry = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            return PeerAddress(entry)
        }
    }
}
