import Dispatch

/// The runtime check behind "UI API only on the main thread".
///
/// Baton's UI types are `@MainActor`, so Swift refuses most wrong calls when compiling; this
/// catches the rest at run time (a C callback or `@preconcurrency` code reaching them from
/// another thread) and traps, as AppKit does, with a message that names the call.
/// (`MainActor.preconditionIsolated` would trap inside libdispatch before printing anything.)
enum UIThread {
    private static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// On the main thread, or in a job of the main queue (which is where the main actor runs
    /// when a test runner or service hands the main queue to `dispatch_main()`).
    static var isMainActorContext: Bool {
        MainThreadRules.isInitialThread || DispatchQueue.getSpecific(key: mainQueueKey) == true
    }

    static func check(_ api: @autoclosure () -> String) {
        guard isMainActorContext else {
            fatalError("Baton: \(api()) must be called on the main actor (the main thread); UI objects are @MainActor")
        }
    }
}
