import Foundation

/// What ends a test's (or the bench's) children when its test case finishes: a type that
/// `ChildRegistry` finds by name (BatonTestSupport's `TestChildren`, an XCTest observer) and
/// tells when the first child starts, so that this target needs no XCTest.
public protocol ChildRegistryObserver: AnyObject {
    /// Called once, when the first child of the process starts (on that child's thread).
    static func childRegistryDidStartFirstChild()
}

/// The children started (`ChildProcess`) that still run, and the process groups of those
/// started since the last `endAll`. In a test bundle, BatonTestSupport's `TestChildren` ends
/// them all when each test case finishes; the bench ends its own.
public final class ChildRegistry: @unchecked Sendable {
    /// The one registry of this process.
    public static let shared = ChildRegistry()

    /// The observer's type name, looked up when the first child starts (found only in a
    /// test bundle, which links BatonTestSupport).
    public static let observerTypeName = "BatonTestSupport.TestChildren"

    private let lock = NSLock()
    private var running: [pid_t: ChildProcess] = [:]
    /// The process groups of children started since the last `endAll`, ended or not: what a
    /// child left behind in its group is ended too.
    private var groups: Set<pid_t> = []
    private var observed = false
    private var foundObserver: (any ChildRegistryObserver.Type)?

    func started(_ child: ChildProcess) {
        lock.lock()
        running[child.pid] = child
        groups.insert(child.pid)
        let first = !observed
        observed = true
        lock.unlock()
        if first, let observer = _typeByName(Self.observerTypeName) as? ChildRegistryObserver.Type {
            lock.lock()
            foundObserver = observer
            lock.unlock()
            observer.childRegistryDidStartFirstChild()
        }
    }

    /// The observer told of the first child (`observerTypeName`'s type), once a child has
    /// started in a process that has one.
    public var observer: (any ChildRegistryObserver.Type)? {
        lock.lock(); defer { lock.unlock() }
        return foundObserver
    }

    func ended(_ child: ChildProcess) {
        lock.lock()
        if running[child.pid] === child { running[child.pid] = nil }
        lock.unlock()
    }

    /// The children started that still run.
    public var stillRunning: [ChildProcess] {
        lock.lock(); defer { lock.unlock() }
        return Array(running.values)
    }

    /// Ends every child still running: SIGTERM to each group, SIGKILL to those left after
    /// `grace`. Returns once each has been reaped (bounded).
    public func endAll(grace: TimeInterval = 3) {
        let children = stillRunning
        for child in children { child.signalGroup(SIGTERM) }
        let deadline = Date(timeIntervalSinceNow: grace)
        for child in children { child.wait(until: deadline) }
        for child in children { child.end(grace: 0) }
        lock.lock()
        let started = groups
        groups = []
        lock.unlock()
        // A group outlives its leader while something it started runs. Only processes of this
        // process's session are signalled: a group id can be reused once its group is empty.
        for group in started where ChildProcess.groupHasMembersInThisSession(group) { kill(-group, SIGKILL) }
    }
}
