import BatonLoop
import CAvahi
import CGLib

/// A client of the system's avahi-daemon on a loop: Avahi's GLib poll on the loop's context and
/// one `AvahiClient` on it, shared by everything handed it that browses or publishes
/// (discovery, pairing windows, the search for them).
///
/// One per process: whoever owns the loop makes it — the agent (`Agent`), the node of an app
/// that runs its own (`ContinuityNode`), the `baton` tool — and hands it to each part that
/// needs it (state that belongs to a loop is handed to what needs it, not reached through a
/// global). A part given none makes its own, so a process that hands in none may hold several.
///
/// It connects when its first user joins (`join`); when the last user leaves it disconnects,
/// from the loop, and a later user connects it again. It connects with
/// `AVAHI_CLIENT_NO_FAIL`: with no avahi-daemon it waits for one (`connecting`), and when the
/// daemon goes away it connects again. With no system D-Bus at all no daemon can appear
/// (`noDaemon`). Users hear every change of `state`.
///
/// It owns every Avahi object made through it (browsers, resolvers, entry groups): each C
/// callback comes here, with this object as its only `userdata`, and goes on to the handler
/// registered for that object. When the client goes, Avahi frees its objects with it: the
/// tables are emptied first and users are told, so nothing is freed twice or called after it
/// is freed. Objects are freed from the loop, never inside an Avahi callback.
@MainActor
public final class AvahiConnection {
    /// Where the connection stands.
    enum State: Equatable {
        /// No avahi-daemon answers yet (or it went away); Avahi connects when one appears.
        case connecting
        /// The daemon is (re)establishing its host name: publications wait for `running`.
        case registering
        /// Connected: browse and publish.
        case running
        /// No system D-Bus: no avahi-daemon can be reached and none will appear.
        case noDaemon
        /// Avahi failed; the reason in its words. A new user tries again.
        case failed(String)
    }

    typealias BrowserHandler = @MainActor (_ event: AvahiBrowserEvent, _ interface: AvahiIfIndex, _ proto: AvahiProtocol,
                                           _ name: UnsafePointer<CChar>?, _ type: UnsafePointer<CChar>?,
                                           _ domain: UnsafePointer<CChar>?, _ flags: AvahiLookupResultFlags) -> Void
    typealias ResolverHandler = @MainActor (_ resolver: OpaquePointer, _ event: AvahiResolverEvent, _ interface: AvahiIfIndex, _ name: UnsafePointer<CChar>?,
                                            _ address: UnsafePointer<AvahiAddress>?, _ port: UInt16,
                                            _ txt: UnsafeMutablePointer<AvahiStringList>?) -> Void
    typealias GroupHandler = @MainActor (AvahiEntryGroupState) -> Void

    /// Where the connection stands now.
    private(set) var state: State = .connecting

    /// Avahi objects alive in this process (polls, clients, browsers, resolvers, entry groups):
    /// back where it started once every user has left and the loop has run.
    static var liveObjects: Int { objects }
    /// Avahi clients alive in this process.
    static var liveClients: Int { clients }
    private static var objects = 0
    private static var clients = 0

    private enum Kind { case browser, resolver, group }

    private let context: LoopContext
    private var poll: OpaquePointer?
    private var client: OpaquePointer?
    /// True inside `avahi_client_new`, which calls back with the client it is making.
    private var making = false
    private var users: [ObjectIdentifier: @MainActor (State) -> Void] = [:]
    private var browsers: [OpaquePointer: BrowserHandler] = [:]
    private var resolvers: [OpaquePointer: ResolverHandler] = [:]
    private var groups: [OpaquePointer: GroupHandler] = [:]
    /// Objects given up and not freed yet: freed from the loop, never inside a callback.
    private var doomed: [(OpaquePointer, Kind)] = []
    private var doomedClients: [OpaquePointer] = []
    private var cleanup: LoopSource?

    /// A connection on the loop of `context` (by default the app's, `MainLoop.context`), to
    /// hand to every part of the process that browses or publishes. It connects when the first
    /// of them starts.
    public init(context: LoopContext = MainLoop.context) { self.context = context }

    /// Makes `user` a user: `changed` is called with the state now, before this returns (the
    /// client connecting if none is), and with each change after, until `leave(user)`. A
    /// connection that failed tries again; one with no system bus does not (none will appear
    /// while the others wait).
    func join(_ user: AnyObject, _ changed: @escaping @MainActor (State) -> Void) {
        users[ObjectIdentifier(user)] = changed
        let before = state
        switch state {
        case .failed where client == nil, .connecting where poll == nil: connect()  // each change is told to every user
        default: break
        }
        if state == before { changed(state) }
    }

    /// Stops telling `user`; the last user to leave disconnects the client (from the loop).
    func leave(_ user: AnyObject) {
        guard users.removeValue(forKey: ObjectIdentifier(user)) != nil, users.isEmpty else { return }
        scheduleCleanup()
    }

    /// How many users it has now.
    var userCount: Int { users.count }

    /// Avahi's words for `error`, or for the client's last error.
    func reason(_ error: Int32? = nil) -> String {
        Self.reason(of: error ?? (client.map { avahi_client_errno($0) } ?? Int32(AVAHI_ERR_DISCONNECTED)))
    }

    /// Avahi's words for `error`.
    nonisolated static func reason(of error: Int32) -> String { String(cString: avahi_strerror(error)) }

    /// Avahi's words for no daemon (for a state where none answers).
    nonisolated static var noDaemon: String { reason(of: Int32(AVAHI_ERR_NO_DAEMON)) }

    // MARK: Client

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func borrow(_ userdata: UnsafeMutableRawPointer?) -> AvahiConnection {
        Unmanaged<AvahiConnection>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func connect() {
        if poll == nil {
            // Explicitly: given none, avahi-glib takes GLib's global default context, which a host
            // that embeds Baton in a context of its own never iterates.
            poll = avahi_glib_poll_new(UnsafeMutableRawPointer(context.gContext), G_PRIORITY_DEFAULT)
            Self.objects += 1
        }
        var error: Int32 = 0
        making = true
        let made = avahi_client_new(avahi_glib_poll_get(poll), AVAHI_CLIENT_NO_FAIL, { client, clientState, userdata in
            MainActor.assumeIsolated { AvahiConnection.borrow(userdata).clientChanged(client, clientState) }
        }, userdata, &error)
        making = false
        if let made {
            if client == nil { adopt(made) }
        } else {
            if client != nil { forgetClient() }  // one it called back with, and freed when it failed
            change(to: error == Int32(AVAHI_ERR_NO_DAEMON) ? .noDaemon : .failed(reason(error)))
        }
    }

    private func adopt(_ made: OpaquePointer?) {
        client = made
        Self.objects += 1
        Self.clients += 1
    }

    private func change(to new: State) {
        guard new != state else { return }
        state = new
        for user in Array(users.keys) { users[user]?(new) }  // one that left meanwhile is not told
    }

    private func clientChanged(_ client: OpaquePointer?, _ clientState: AvahiClientState) {
        if making, self.client == nil { adopt(client) }
        guard client == self.client else { return }  // a client given up, not freed yet
        switch clientState {
        case AVAHI_CLIENT_S_RUNNING: change(to: .running)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING: change(to: .registering)
        case AVAHI_CLIENT_CONNECTING: change(to: .connecting)
        case AVAHI_CLIENT_FAILURE:
            let error = avahi_client_errno(client)
            // Never free the client inside its own callback: Avahi's D-Bus dispatch goes on
            // using it after the callback returns. Give it up now; free it (and connect again
            // when the daemon went away) from the loop.
            giveUpClient()
            change(to: error == Int32(AVAHI_ERR_DISCONNECTED) ? .connecting : .failed(reason(error)))
            scheduleCleanup()
        default:
            break
        }
    }

    /// Forgets the client and every object made through it (Avahi frees them with the client),
    /// and queues the client to be freed from the loop.
    private func giveUpClient() {
        guard let client else { return }
        forgetClient()
        doomedClients.append(client)
        Self.objects += 1
        Self.clients += 1
    }

    /// Forgets the client (freed already, or queued to be) and every object made through it.
    private func forgetClient() {
        Self.objects -= 1 + browsers.count + resolvers.count + groups.count + doomed.count
        Self.clients -= 1
        browsers = [:]
        resolvers = [:]
        groups = [:]
        doomed = []
        client = nil
    }

    private func scheduleCleanup() {
        guard cleanup == nil else { return }
        cleanup = MainLoop.idle { [self] in
            cleanup = nil
            for (object, kind) in doomed {
                switch kind {
                case .browser: avahi_service_browser_free(object)
                case .resolver: avahi_service_resolver_free(object)
                case .group: avahi_entry_group_free(object)  // withdraws what it published (Avahi sends the goodbye)
                }
            }
            Self.objects -= doomed.count
            doomed = []
            if users.isEmpty { giveUpClient() }
            for client in doomedClients { avahi_client_free(client) }
            Self.objects -= doomedClients.count
            Self.clients -= doomedClients.count
            doomedClients = []
            if users.isEmpty {
                if let poll { avahi_glib_poll_free(poll); Self.objects -= 1 }
                poll = nil
                state = .connecting
            } else if client == nil, state == .connecting {
                connect()  // the daemon went away: wait for it to come back
            }
        }
    }

    // MARK: Objects

    /// A browser of `type` (IPv4, every interface), calling `handler` until `free(_:)`; nil
    /// unless the client runs.
    func browse(_ type: String, _ handler: @escaping BrowserHandler) -> OpaquePointer? {
        guard state == .running, let client else { return nil }
        let browser = avahi_service_browser_new(client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_INET), type, nil,
                                                AvahiLookupFlags(0), { browser, interface, proto, event, name, type, domain, flags, userdata in
            MainActor.assumeIsolated {
                guard let browser, let handler = AvahiConnection.borrow(userdata).browsers[browser] else { return }
                handler(event, interface, proto, name, type, domain, flags)
            }
        }, userdata)
        if let browser { browsers[browser] = handler; Self.objects += 1 }
        return browser
    }

    /// A resolver of a service a browser reported, to an IPv4 address; nil unless the client runs.
    func resolve(interface: AvahiIfIndex, proto: AvahiProtocol, name: UnsafePointer<CChar>, type: UnsafePointer<CChar>?,
                 domain: UnsafePointer<CChar>?, _ handler: @escaping ResolverHandler) -> OpaquePointer? {
        guard state == .running || state == .registering, let client else { return nil }
        let resolver = avahi_service_resolver_new(client, interface, proto, name, type, domain, AvahiProtocol(AVAHI_PROTO_INET),
                                                  AvahiLookupFlags(0), { resolver, interface, _, event, name, _, _, _, address, port, txt, _, userdata in
            MainActor.assumeIsolated {
                guard let resolver, let handler = AvahiConnection.borrow(userdata).resolvers[resolver] else { return }
                handler(resolver, event, interface, name, address, port, txt)
            }
        }, userdata)
        if let resolver { resolvers[resolver] = handler; Self.objects += 1 }
        return resolver
    }

    /// An entry group, reporting its states to `handler`; nil unless the client runs.
    func entryGroup(_ handler: @escaping GroupHandler) -> OpaquePointer? {
        guard state == .running, let client else { return nil }
        let group = avahi_entry_group_new(client, { group, groupState, userdata in
            MainActor.assumeIsolated {
                guard let group, let handler = AvahiConnection.borrow(userdata).groups[group] else { return }
                handler(groupState)
            }
        }, userdata)
        if let group { groups[group] = handler; Self.objects += 1 }
        return group
    }

    /// Frees a browser, resolver or entry group made here (from the loop: no callback reaches
    /// its handler any more). One the client took with it is already gone: nothing to do.
    func free(_ object: OpaquePointer) {
        if browsers.removeValue(forKey: object) != nil {
            doomed.append((object, .browser))
        } else if resolvers.removeValue(forKey: object) != nil {
            doomed.append((object, .resolver))
        } else if groups.removeValue(forKey: object) != nil {
            doomed.append((object, .group))
        } else {
            return
        }
        scheduleCleanup()
    }
}
