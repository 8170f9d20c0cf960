import BatonLoop
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
    private var browse: ServiceBrowse?
    private var deadline: LoopSource?
    private var waiter: CheckedContinuation<Result<[PeerAddress], PairingError>, Never>?

    private let avahi: AvahiConnection

    private init(avahi: AvahiConnection) { self.avahi = avahi }

    /// The pairing windows on the network: as soon as avahi-daemon has reported what it knows
    /// now and at least one was resolved, else whatever was found within `time` (maybe none).
    /// Fails when no avahi-daemon answers. Browses through `avahi`, the process's client of the
    /// daemon, made by whoever owns the loop (with none, the search makes a client of its own).
    public static func find(within time: Duration = .seconds(10), avahi: AvahiConnection? = nil) async -> Result<[PeerAddress], PairingError> {
        let browser = PairingBrowser(avahi: avahi ?? AvahiConnection())
        return await withLoopContinuation { continuation in
            browser.waiter = continuation
            browser.start(within: time)
        }
    }

    private func start(within time: Duration) {
        deadline = MainLoop.after(time) { [self] in finish(nil) }
        let browse = ServiceBrowse(PairingAdvertisement.serviceType, through: avahi, maximumPending: Self.maximumFound) { [self] event in
            browsed(event)
        }
        self.browse = browse
        browse.start()
    }

    /// Ends the search (`failure`, or what was found) and stops browsing.
    private func finish(_ failure: String?) {
        guard let waiter else { return }
        self.waiter = nil
        deadline?.cancel()
        deadline = nil
        browse?.stop()  // the browse and its handlers hold this object until here
        browse = nil
        waiter.resume(returning: failure.map { .failure(.notFound($0)) } ?? .success(found))
    }

    private func browsed(_ event: ServiceBrowse.Event) {
        switch event {
        case .found(let window):
            if window.txt == PairingAdvertisement.txt, !found.contains(window.address), found.count < Self.maximumFound {
                found.append(window.address)
            }
        case .settled:
            if !found.isEmpty { finish(nil) }
        case .connection(.connecting), .connection(.noDaemon):
            finish("no avahi-daemon answers (\(AvahiConnection.noDaemon))")
        case .connection(.failed(let reason)):
            finish("no avahi-daemon answers (\(reason))")
        case .cannotBrowse(let reason), .failed(let reason):
            finish(reason)
        case .removed, .connection:
            break
        }
    }
}
