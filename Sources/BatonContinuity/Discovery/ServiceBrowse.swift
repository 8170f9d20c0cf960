import BatonLoop
import CAvahi

/// A DNS-SD service a browse found and resolved: where it listens (IPv4) and its TXT strings.
struct ResolvedService: Equatable {
    /// The interface it was found on, and its instance name: together, which service it is.
    var interface: Int32
    var name: String
    var address: PeerAddress
    /// At most `ServiceBrowse.maximumStrings` strings, each as published.
    var txt: [String]
}

/// Browses one DNS-SD service type through the `AvahiConnection` it is given (IPv4, every
/// interface) and resolves each service found, at most `maximumPending` at a time (the rest
/// are not resolved: the network is hostile). While the daemon is away it waits, and browses
/// again when it is back.
@MainActor
final class ServiceBrowse {
    enum Event {
        /// A service resolved (again after each change of it).
        case found(ResolvedService)
        /// A service was withdrawn (by interface and instance name).
        case removed(interface: Int32, name: String)
        /// The browse has reported what the network holds now, and each service found is
        /// resolved (again after each later resolution while none is pending).
        case settled
        /// The connection changed (the browse starts again by itself on `running`).
        case connection(AvahiConnection.State)
        /// Avahi would not make the browser; the reason in its words. It tries again when the
        /// daemon next comes back.
        case cannotBrowse(String)
        /// The daemon reported the browse failed; the reason in Avahi's words.
        case failed(String)
    }

    /// TXT strings kept of a service.
    static let maximumStrings = 16

    private let type: String
    private let maximumPending: Int
    private let skip: @MainActor (_ name: String, _ ourOwn: Bool) -> Bool
    private let report: @MainActor (Event) -> Void
    private let connection: AvahiConnection
    /// True between `start()` and `stop()`: a user of the connection.
    private var joined = false
    private var browser: OpaquePointer?
    private var resolvers: Set<OpaquePointer> = []
    private var allForNow = false

    /// A browse of `type` through `connection`, reporting to `report`; a service `skip` names
    /// (by instance name, and whether this process published it) is not resolved.
    init(_ type: String, through connection: AvahiConnection, maximumPending: Int = 16,
         skip: @escaping @MainActor (_ name: String, _ ourOwn: Bool) -> Bool = { _, _ in false },
         report: @escaping @MainActor (Event) -> Void) {
        self.type = type
        self.connection = connection
        self.maximumPending = maximumPending
        self.skip = skip
        self.report = report
    }

    isolated deinit { stop() }

    /// Services being resolved now.
    var pending: Int { resolvers.count }

    /// Joins the connection and browses as soon as it runs.
    func start() {
        guard !joined else { return }
        joined = true
        connection.join(self) { [weak self] state in self?.connectionChanged(state) }
    }

    /// Stops browsing and resolving, and leaves the connection.
    func stop() {
        guard joined else { return }
        forget(freeing: true)
        connection.leave(self)
        joined = false
    }

    private func forget(freeing: Bool) {
        if freeing {
            for object in resolvers { connection.free(object) }
            if let browser { connection.free(browser) }
        }
        resolvers = []
        browser = nil
    }

    private func connectionChanged(_ state: AvahiConnection.State) {
        if state == .running, browser == nil, joined {
            browser = connection.browse(type) { [weak self] event, interface, proto, name, type, domain, flags in
                self?.browsed(event, interface: interface, proto: proto, name: name, type: type, domain: domain, flags: flags)
            }
            if browser == nil { report(.cannotBrowse("cannot browse: \(connection.reason())")) }
        } else if state != .running, state != .registering {
            forget(freeing: false)  // gone with the client
        }
        report(.connection(state))
    }

    private func browsed(_ event: AvahiBrowserEvent, interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>?,
                         type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?, flags: AvahiLookupResultFlags) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, joined, resolvers.count < maximumPending,
                  !skip(String(cString: name), flags.rawValue & AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue != 0) else { return }
            let resolver = connection.resolve(interface: interface, proto: proto, name: name, type: type, domain: domain) {
                [weak self] resolver, event, interface, name, address, port, txt in
                self?.resolved(resolver, event, interface: interface, name: name, address: address, port: port, txt: txt)
            }
            if let resolver { resolvers.insert(resolver) }
        case AVAHI_BROWSER_REMOVE:
            guard let name else { return }
            report(.removed(interface: interface, name: String(cString: name)))
        case AVAHI_BROWSER_ALL_FOR_NOW:
            allForNow = true
            settleIfResolved()
        case AVAHI_BROWSER_FAILURE:
            report(.failed("browsing failed: \(connection.reason())"))
        default:
            break
        }
    }

    private func resolved(_ resolver: OpaquePointer, _ event: AvahiResolverEvent, interface: AvahiIfIndex, name: UnsafePointer<CChar>?,
                          address: UnsafePointer<AvahiAddress>?, port: UInt16, txt: UnsafeMutablePointer<AvahiStringList>?) {
        // One answer is all a resolver is for (Avahi would go on reporting changes).
        if resolvers.remove(resolver) != nil { connection.free(resolver) }
        if event == AVAHI_RESOLVER_FOUND, let name, let address {
            var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
            let host = text.withUnsafeMutableBufferPointer { String(cString: avahi_address_snprint($0.baseAddress, $0.count, address)) }
            report(.found(ResolvedService(interface: interface, name: String(cString: name), address: PeerAddress(host: host, port: port),
                                          txt: Self.strings(txt))))
        }
        settleIfResolved()
    }

    private func settleIfResolved() {
        if allForNow, resolvers.isEmpty { report(.settled) }
    }

    private static func strings(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String] {
        var result: [String] = []
        var item = list
        while let entry = item, result.count < maximumStrings {
            result.append(String(decoding: UnsafeBufferPointer(start: avahi_string_list_get_text(entry),
                                                               count: avahi_string_list_get_size(entry)), as: UTF8.self))
            item = avahi_string_list_get_next(entry)
        }
        return result
    }
}
