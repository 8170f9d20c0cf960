import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The host names relay settings accept: a DNS name or an IP address, nothing that a
/// configuration file or a URI could read as something else.
enum RelayHost {
    /// Host names are at most this long (RFC 1035).
    static let maximumLength = 253

    /// `host` (an IPv6 address without brackets) if it is an IPv4 or IPv6 address, or a DNS name
    /// of labels of 1–63 letters, digits and `-` (not first or last) joined by dots, at most 253
    /// characters; otherwise `RelaySettingsError.invalidHost`. A trailing dot is dropped.
    static func checked(_ host: String) throws(RelaySettingsError) -> String {
        if isIPAddress(host) { return host }
        var name = host
        if name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty, name.utf8.count <= maximumLength else { throw .invalidHost(host) }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count), label.first != "-", label.last != "-",
                  label.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-") })
            else { throw .invalidHost(host) }
        }
        // All-digit labels that are not an address (999.1.1.1) would be read as one.
        if name.split(separator: ".").last?.allSatisfy(\.isNumber) == true { throw .invalidHost(host) }
        return name.lowercased()
    }

    /// True if `text` is an IPv6 address (without brackets).
    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// True if `text` is an IPv4 or IPv6 address.
    static func isIPAddress(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1 || isIPv6(text)
    }

    /// `host` as it goes into a URI: an IPv6 address in brackets.
    static func inURI(_ host: String) -> String { isIPv6(host) ? "[\(host)]" : host }

    /// Splits `HOST[:PORT]` (`[IPv6][:PORT]`) into a checked host and the port, or
    /// `defaultPort` if none is given. `invalid` makes the error for a malformed part.
    static func split(_ authority: Substring, defaultPort: UInt16,
                      invalid: (String) -> RelaySettingsError) throws(RelaySettingsError) -> (host: String, port: UInt16) {
        var host: Substring, portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw invalid("an IPv6 address needs its closing ']'") }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw invalid("':PORT' expected after ']'") }
                portText = rest.dropFirst()
            }
            guard isIPv6(String(host)) else { throw .invalidHost(String(host)) }
        } else if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        var port = defaultPort
        if let portText {
            guard let value = UInt16(portText), value > 0 else { throw invalid("'\(portText)' is not a port (1–65535)") }
            port = value
        }
        guard !host.isEmpty else { throw invalid("no host") }
        return (try checked(String(host)), port)
    }
}
