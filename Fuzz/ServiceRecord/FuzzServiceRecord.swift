@testable import BatonContinuity
import Foundation
import FuzzSupport

// DNS-SD TXT records of `_baton._tcp` services anyone on the link publishes:
// `ServiceRecord.refusal(of:key:port:address:)`, on the strings `ServiceDiscovery` makes of Avahi's list.
//
// Input: the TXT record's wire form (RFC 6763 section 6: a length byte, then that many bytes,
// repeated); each string is decoded as `ServiceDiscovery.strings` decodes Avahi's entries.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    _ = key
    return 0
}

/// The group's discovery key, the one the records are checked against (made once).
private enum Group {
    static let key: DiscoveryKey = {
        guard let key = FuzzGroup.shared.verifier.discoveryKey else { fatalError("fuzz: the group has no discovery key") }
        return key
    }()
}

nonisolated private var key: DiscoveryKey { Group.key }
/// The port and address the records are checked for, as if Avahi had resolved them there.
private let port: UInt16 = 7300
private let address = "10.0.0.2"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzServiceRecord(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    var entries: [String] = []
    var index = input.startIndex
    while index < input.endIndex {
        let length = Int(input[index])
        let start = input.index(after: index), end = min(start + length, input.endIndex)
        entries.append(String(decoding: input[start..<end], as: UTF8.self))
        index = end
    }
    if ServiceRecord.refusal(of: entries, key: key, port: port, address: address) == nil {
        FuzzInput.require(entries.contains { $0.hasPrefix("g=") && key.recognises(String($0.dropFirst(2)), port: port, address: address) },
                          "a record without this group's token was accepted")
    }
    return 0
}

private func seeds() throws -> [String: Data] {
    func wire(_ entries: [String]) -> Data {
        entries.reduce(into: Data()) { data, entry in
            let bytes = Data(entry.utf8.prefix(255))
            data.append(UInt8(bytes.count)); data.append(bytes)
        }
    }
    let other = try DiscoveryKey(bytes: Data(repeating: 7, count: 32))
    func token() -> String { key.freshToken(port: port, addresses: [address]) }
    return [
        "fresh": wire(ServiceRecord.fresh(key: key, port: port, addresses: [address]).txt),
        "fresh-reordered": wire(ServiceRecord.fresh(key: key, port: port, addresses: [address]).txt.reversed()),
        "other-group": wire(ServiceRecord.fresh(key: other, port: port, addresses: [address]).txt),
        "version-2": wire(["v=2", "g=" + token()]),
        "no-version": wire(["g=" + token()]),
        "no-token": wire(["v=1"]),
        "duplicate-and-junk": wire(["v=1", "g=zz", "g=" + token(), "novalue", "=x", ""]),
        "other-address": wire(ServiceRecord.fresh(key: key, port: port, addresses: ["10.0.0.3"]).txt),
        "other-port": wire(ServiceRecord.fresh(key: key, port: port + 1, addresses: [address]).txt),
        "several-addresses": wire(ServiceRecord.fresh(key: key, port: port, addresses: ["10.0.0.3", address, "192.0.2.1"]).txt),
        "empty": Data(),
    ]
}

FuzzDriver.run(fuzzServiceRecord)
