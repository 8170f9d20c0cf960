import BatonLoop
import Foundation

/// An open pairing window, published through the system's avahi-daemon so a new device finds
/// it: service type `_baton-pair._tcp` (apart from the group's `_baton._tcp`), a random
/// instance name (`pair-` and 8 hex digits, new for each window), the window's own port, and
/// TXT `v=1` only — no device, user or group name, no token (the newcomer holds no key).
/// IPv4, every interface. Published through the client of the daemon it is handed (the
/// process's one `AvahiConnection`, shared with discovery). `stop()` withdraws it (Avahi sends the goodbye).
@MainActor
public final class PairingAdvertisement {
    /// The DNS-SD service type of pairing windows.
    public nonisolated static let serviceType = "_baton-pair._tcp"
    /// The TXT record, all of it.
    nonisolated static let txt = ["v=1"]

    /// The instance name published (it changes only on a name collision).
    public private(set) var instanceName = PairingAdvertisement.freshName()
    /// Called once the service is established on the network, with its instance name.
    public var onPublished: ((String) -> Void)?
    /// Called if it cannot be published (no avahi-daemon, or Avahi failed), with why.
    public var onUnavailable: ((String) -> Void)?
    /// Where it says it is published (`DiagnosticEvent.servicePublished`): observers here, and
    /// the process's diagnostics pipe.
    public let diagnostics = Diagnostics()
    private let port: UInt16
    private let avahi: AvahiConnection
    private var publication: ServicePublication?

    /// An advertisement for a window listening on `port`, published through `avahi`: the
    /// process's client of avahi-daemon, made by whoever owns the loop (with none, it makes a
    /// client of its own).
    public init(port: UInt16, avahi: AvahiConnection? = nil) {
        self.port = port
        self.avahi = avahi ?? AvahiConnection()
    }

    static func freshName() -> String {
        "pair-" + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Publishes it as soon as avahi-daemon answers.
    public func start() {
        guard publication == nil else { return }
        let publication = ServicePublication(through: avahi, entries: { [weak self] collided in
            guard let self else { return [] }
            if collided { instanceName = Self.freshName() }
            return [ServiceEntry(interface: ServiceEntry.everyInterface, name: instanceName, type: Self.serviceType, port: port, txt: Self.txt)]
        }) { [weak self] event in
            self?.published(event)
        }
        self.publication = publication
        publication.start()
    }

    /// Withdraws the service.
    public func stop() {
        publication?.stop()
        publication = nil
    }

    private func published(_ event: ServicePublication.Event) {
        switch event {
        case .established:
            diagnostics.publish(.servicePublished(name: instanceName, port: port))
            onPublished?(instanceName)
        case .cannotPublish(let reason), .failed(let reason), .connection(.failed(let reason)): unavailable(reason)
        case .connection(.connecting), .connection(.noDaemon): unavailable(AvahiConnection.noDaemon)
        case .connection: break
        }
    }

    private func unavailable(_ reason: String) {
        let report = onUnavailable
        onUnavailable = nil
        report?(reason)
    }
}
