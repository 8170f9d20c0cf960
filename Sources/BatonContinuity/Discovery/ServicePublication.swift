import BatonLoop
import CAvahi

/// One DNS-SD service to publish: IPv4, on one interface (or `everyInterface`).
struct ServiceEntry {
    /// `interface` for every interface (`AVAHI_IF_UNSPEC`).
    static let everyInterface = Int32(AVAHI_IF_UNSPEC)

    var interface: Int32
    var name: String
    var type: String
    var port: UInt16
    var txt: [String]
}

/// Services published together (one Avahi entry group) through the `AvahiConnection` it is
/// given: as soon as the daemon runs, again after it comes back or re-registers its
/// host name, with a new name after a collision, and whenever the owner asks
/// (`publishAgain`). `stop()` withdraws them (Avahi sends the goodbye).
@MainActor
final class ServicePublication {
    enum Event {
        /// The services are established on the network.
        case established
        /// They could not be published; the reason in Avahi's words.
        case cannotPublish(String)
        /// The daemon reported the entry group failed.
        case failed(String)
        /// The connection changed (they are published again by themselves on `running`).
        case connection(AvahiConnection.State)
    }

    /// Tries with fresh names after a collision before giving up.
    static let maximumRenames = 8

    private let entries: @MainActor (_ collided: Bool) -> [ServiceEntry]
    private let report: @MainActor (Event) -> Void
    private let connection: AvahiConnection
    /// True between `start()` and `stop()`: a user of the connection.
    private var joined = false
    private var group: OpaquePointer?

    /// Publishes through `connection` what `entries` gives at each publication (`collided`: a
    /// name was taken, pick another); an empty list publishes nothing until the next. Events go
    /// to `report`.
    init(through connection: AvahiConnection, entries: @escaping @MainActor (_ collided: Bool) -> [ServiceEntry],
         report: @escaping @MainActor (Event) -> Void) {
        self.connection = connection
        self.entries = entries
        self.report = report
    }

    isolated deinit { stop() }

    /// True while an entry group exists (its services published or being published).
    var isPublished: Bool { group != nil }

    /// Joins the connection and publishes as soon as it runs.
    func start() {
        guard !joined else { return }
        joined = true
        connection.join(self) { [weak self] state in self?.connectionChanged(state) }
    }

    /// Publishes again, with what `entries` gives now, if the daemon runs.
    func publishAgain() { publish(collided: false) }

    /// Withdraws the services and leaves the connection.
    func stop() {
        guard joined else { return }
        if let group { connection.free(group) }
        group = nil
        connection.leave(self)
        joined = false
    }

    private func connectionChanged(_ state: AvahiConnection.State) {
        switch state {
        case .running:
            if group == nil || avahi_entry_group_is_empty(group) != 0 { publish(collided: false) }
        case .registering:
            // The daemon's host name is being (re)established; the services go back up on running.
            if let group { avahi_entry_group_reset(group) }
        default:
            group = nil  // gone with the client
        }
        report(.connection(state))
    }

    private func publish(collided: Bool, renames: Int = 0) {
        guard joined, connection.state == .running else { return }
        if let group {
            avahi_entry_group_reset(group)
        } else {
            group = connection.entryGroup { [weak self] state in self?.groupChanged(state) }
            guard group != nil else { return report(.cannotPublish("cannot publish: \(connection.reason())")) }
        }
        let services = entries(collided)
        guard !services.isEmpty else { return }
        for service in services {
            var txt: UnsafeMutablePointer<AvahiStringList>?
            for entry in service.txt { txt = avahi_string_list_add(txt, entry) }
            defer { avahi_string_list_free(txt) }
            let added = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(service.interface), AvahiProtocol(AVAHI_PROTO_INET),
                                                             AvahiPublishFlags(0), service.name, service.type, nil, nil, service.port, txt)
            if added == Int32(AVAHI_ERR_COLLISION), renames < Self.maximumRenames { return publish(collided: true, renames: renames + 1) }
            guard added == 0 else { return report(.cannotPublish("cannot publish: \(connection.reason(added))")) }
        }
        guard avahi_entry_group_commit(group) == 0 else { return report(.cannotPublish("cannot publish: \(connection.reason())")) }
    }

    private func groupChanged(_ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED: report(.established)
        case AVAHI_ENTRY_GROUP_COLLISION: publish(collided: true)  // another service took the name: pick a new one
        case AVAHI_ENTRY_GROUP_FAILURE: report(.failed(connection.reason()))
        default: break
        }
    }
}
