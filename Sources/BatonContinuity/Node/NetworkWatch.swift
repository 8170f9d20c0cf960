import BatonLoop
import CGLib
import Foundation

/// Calls back on the loop when the system's network changes — an interface comes up, an
/// address or a route is added or removed (GIO's default `GNetworkMonitor`: netlink, or
/// NetworkManager where it runs): what a resumed laptop or a cable plugged in looks like to the
/// node. Whether GIO calls the network available is not asked: that means a default route,
/// and a local network without one (no gateway) still reaches the group's devices. The monitor is made with the app's loop as the
/// thread-default context, so GIO delivers its `network-changed` signal through it.
@MainActor
final class NetworkWatch {
    /// The `GNetworkMonitor *` (GIO's own, not referenced here: it lives as long as the process).
    private var monitor: UnsafeMutableRawPointer?
    private var handler: gulong = 0

    /// Watches the default network monitor; `changed` runs after each change.
    init(changed: @escaping @MainActor () -> Void) {
        // The default monitor is made once per process, delivering through the thread-default
        // context of its making: the loop's.
        guard let made = MainLoop.withThreadDefaultContext({ g_network_monitor_get_default() }) else { return }
        let pointer = UnsafeMutableRawPointer(made)
        monitor = pointer
        let box = SignalBox { _ in changed() }
        handler = g_signal_connect_data(pointer, "network-changed",
                                        unsafeBitCast(networkChangedTrampoline, to: GCallback.self),
                                        box.retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }

    /// Stops watching; the handler's box is released with the handler. (The default monitor
    /// itself is GIO's, kept for the process.)
    func cancel() {
        guard let monitor else { return }
        self.monitor = nil
        g_signal_handler_disconnect(monitor, handler)
    }

    isolated deinit { cancel() }
}

/// `void network_changed(GNetworkMonitor *, gboolean available, gpointer)`.
private let networkChangedTrampoline: @convention(c) (UnsafeMutableRawPointer?, gboolean, UnsafeMutableRawPointer?) -> Void = {
    _, _, userData in
    guard let userData else { return }
    let box = SignalBox.borrow(userData)
    MainActor.assumeIsolated { box.body(nil) }
}
