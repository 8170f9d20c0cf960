import Foundation

/// What a device publishes in DNS-SD: a `_baton._tcp` service under a random instance name,
/// with TXT `v=1` (the protocol version) and `g=<token>` (the blinded group token, bound to the
/// port and to the interface's addresses it is published on). Nothing else — no device name, no
/// stable id; name and token change at every rotation.
struct ServiceRecord: Equatable {
    static let serviceType = "_baton._tcp"
    static let protocolVersion = "1"

    var instanceName: String
    var token: String

    /// A random instance name.
    static func freshName() -> String {
        "baton-" + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// A new record: random instance name, fresh token for `port` on `addresses`.
    static func fresh(key: DiscoveryKey, port: UInt16, addresses: [String]) -> ServiceRecord {
        ServiceRecord(instanceName: freshName(), token: key.freshToken(port: port, addresses: addresses))
    }

    var txt: [String] { ["v=\(Self.protocolVersion)", "g=\(token)"] }

    /// Why a peer's TXT, resolved to `address` and `port`, is not one to dial, or nil if it is
    /// a device of this group speaking this protocol version, published for that address and port.
    static func refusal(of txt: [String], key: DiscoveryKey, port: UInt16, address: String) -> String? {
        var fields: [Substring: Substring] = [:]
        for entry in txt {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            fields[parts[0]] = parts[1]
        }
        guard let version = fields["v"] else { return "no protocol version" }
        guard version == Self.protocolVersion else { return "protocol version \(version)" }
        guard let token = fields["g"], key.recognises(String(token), port: port, address: address) else {
            return "not this group's token for \(address):\(port)"
        }
        return nil
    }
}
