import BatonLoop
import CAvahi
import CGLib
import Foundation

/// Finds open pairing windows (`PairingAdvertisement`) through the system's avahi-daemon, for a
/// new device that was not given an address: browses `_baton-pair._tcp`, resolves each to an
/// IPv4 address, and keeps those whose TXT is exactly `v=1`. A window's address says nothing
/// of who opened it: the code the people compare is what authenticates it.
@MainActor
public final class PairingBrowser {
    /// At most this many windows are kept.
    static let maximumFound = 16

    private var found: [PeerAddress] = []
    private var allForNow = false
    nonisolated(unsafe) private var poll: OpaquePointer?
    nonisolated(unsafe) private var client: OpaquePointer?
    private var browser: OpaquePointer?
    private var resolvers: Set<OpaquePointer> = []
    private var deadline: LoopSource?
    private var waiter: CheckedContinuation<Result<[PeerAddress], PairingError>, Never>?

    private init() {}

    deinit {
        if let client { avahi_client_free(client) }
        if let poll { avahi_glib_poll_free(poll) }
    }

    /// The pairing windows on the network: as soon as avahi-daemon has reported what it knows
    /// now and at least one was resolved, else whatever was found within `time` (maybe none).
    /// Fails when no avahi-daemon answers.
    public static func find(within time: Duration = .seconds(10)) async -> Result<[PeerAddress], PairingError> {
        let browser = PairingBrowser()
        let result = await withLoopContinuation { continuation in
            browser.waiter = continuation
            browser.start(within: time)
        }
        // Avahi's callbacks hold it unretained: it must live until the search is over.
        withExtendedLifetime(browser) {}
        return result
    }

    private func start(within time: Duration) {
        deadline = MainLoop.after(time) { [weak self] in self?.finish(nil) }
        poll = avahi_glib_poll_new(UnsafeMutableRawPointer(MainLoop.context.gContext), G_PRIORITY_DEFAULT)
        var error: Int32 = 0
        client = avahi_client_new(avahi_glib_poll_get(poll), AvahiClientFlags(0), { client, state, userdata in
            MainActor.assumeIsolated { PairingBrowser.borrow(userdata).clientChanged(client, state) }
        }, Unmanaged.passUnretained(self).toOpaque(), &error)
        if client == nil { finish("no avahi-daemon answers (\(String(cString: avahi_strerror(error))))") }
    }

    private static func borrow(_ userdata: UnsafeMutableRawPointer?) -> PairingBrowser {
        Unmanaged<PairingBrowser>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Ends the search (`failure`, or what was found), freeing Avahi's objects from the loop,
    /// never inside their own callbacks.
    private func finish(_ failure: String?) {
        guard let waiter else { return }
        self.waiter = nil
        deadline?.cancel()
        deadline = nil
        waiter.resume(returning: failure.map { .failure(.notFound($0)) } ?? .success(found))
        MainLoop.idle { [self] in
            for resolver in resolvers { avahi_service_resolver_free(resolver) }
            resolvers = []
            if let browser { avahi_service_browser_free(browser) }
            browser = nil
            if let client { avahi_client_free(client) }
            client = nil
            if let poll { avahi_glib_poll_free(poll) }
            poll = nil
        }
    }

    private func clientChanged(_ client: OpaquePointer?, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            guard browser == nil, waiter != nil else { return }
            browser = avahi_service_browser_new(client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_INET),
                                                PairingAdvertisement.serviceType, nil, AvahiLookupFlags(0), {
                _, interface, proto, event, name, type, domain, _, userdata in
                MainActor.assumeIsolated {
                    PairingBrowser.borrow(userdata).browsed(event, interface: interface, proto: proto, name: name, type: type, domain: domain)
                }
            }, Unmanaged.passUnretained(self).toOpaque())
            if browser == nil { finish("cannot browse: \(String(cString: avahi_strerror(avahi_client_errno(client))))") }
        case AVAHI_CLIENT_FAILURE:
            finish("no avahi-daemon answers (\(String(cString: avahi_strerror(avahi_client_errno(client)))))")
        default:
            break
        }
    }

    private func browsed(_ event: AvahiBrowserEvent, interface: AvahiIfIndex, proto: AvahiProtocol,
                         name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, resolvers.count + found.count < Self.maximumFound else { return }
            let resolver = avahi_service_resolver_new(client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_INET),
                                                      AvahiLookupFlags(0), { resolver, _, _, event, _, _, _, _, address, port, txt, _, userdata in
                MainActor.assumeIsolated {
                    PairingBrowser.borrow(userdata).resolved(resolver, event, address: address, port: port, txt: txt)
                }
            }, Unmanaged.passUnretained(self).toOpaque())
            if let resolver { resolvers.insert(resolver) }
        case AVAHI_BROWSER_ALL_FOR_NOW:
            allForNow = true
            finishIfSettled()
        case AVAHI_BROWSER_FAILURE:
            finish("browsing failed: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
        default:
            break
        }
    }

    private func resolved(_ resolver: OpaquePointer?, _ event: AvahiResolverEvent, address: UnsafePointer<AvahiAddress>?,
                          port: UInt16, txt: UnsafeMutablePointer<AvahiStringList>?) {
        // Freed from the loop, not inside its own callback. Once the search has ended, the
        // resolver stays in `resolvers`: the clean-up `finish` queued frees it with the client
        // (freed here as well, it would be freed twice).
        if let resolver, waiter != nil, resolvers.remove(resolver) != nil {
            let pointer = SendableOpaque(resolver)
            MainLoop.idle { avahi_service_resolver_free(pointer.pointer) }
        }
        if event == AVAHI_RESOLVER_FOUND, let address, Self.strings(txt) == PairingAdvertisement.txt {
            var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
            let host = text.withUnsafeMutableBufferPointer { String(cString: avahi_address_snprint($0.baseAddress, $0.count, address)) }
            let window = PeerAddress(host: host, port: port)
            if !found.contains(window) { found.append(window) }
        }
        finishIfSettled()
    }

    private func finishIfSettled() {
        if allForNow, resolvers.isEmpty, !found.isEmpty { finish(nil) }
    }

    private static func strings(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String] {
        var result: [String] = []
        var item = list
        while let entry = item, result.count < 16 {
            result.append(String(decoding: UnsafeBufferPointer(start: avahi_string_list_get_text(entry),
                                                               count: avahi_string_list_get_size(entry)), as: UTF8.self))
            item = avahi_string_list_get_next(entry)
        }
        return result
    }
}
