import Foundation
import XCTest

/// The children tests have started and that still run (`ChildRegistry`). When a test case
/// finishes — passed, failed or thrown — each is ended with its process group (SIGTERM, then
/// SIGKILL), so no process outlives the test that started it; the same once more when the
/// bundle finishes. The registry finds this type by name when the first child starts and it
/// then observes XCTest.
public final class TestChildren: NSObject, XCTestObservation, ChildRegistryObserver, @unchecked Sendable {
    /// The one observer of this test bundle.
    public static let shared = TestChildren()

    /// Starts observing XCTest: called by `ChildRegistry` when the first child starts.
    public static func childRegistryDidStartFirstChild() {
        XCTestObservationCenter.shared.addTestObserver(shared)
    }

    /// The children started by tests that still run.
    public var stillRunning: [ChildProcess] { ChildRegistry.shared.stillRunning }

    /// Ends every child still running: SIGTERM to each group, SIGKILL to those left after
    /// `grace`. Returns once each has been reaped (bounded).
    public func endAll(grace: TimeInterval = 3) { ChildRegistry.shared.endAll(grace: grace) }

    /// Ends the children the test case left running.
    public func testCaseDidFinish(_ testCase: XCTestCase) { endAll() }
    /// Ends whatever is still running at the bundle's end.
    public func testBundleDidFinish(_ testBundle: Bundle) { endAll() }
}
