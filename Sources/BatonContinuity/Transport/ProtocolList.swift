import Foundation

/// A NULL-terminated list of ALPN protocol names, as GIO takes it, alive for the whole process.
struct ProtocolList: @unchecked Sendable {
    let names: [UnsafePointer<CChar>?]
    private let strings: [String]

    init(_ strings: [String]) {
        self.strings = strings
        names = strings.map { UnsafePointer(strdup($0)) } + [nil]
    }

    func contains(_ name: String) -> Bool { strings.contains(name) }
}
