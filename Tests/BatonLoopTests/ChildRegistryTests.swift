import BatonTestSupport
import Foundation
import XCTest

/// The children tests start are registered in HostSupport (which has no XCTest) and ended at
/// each test case's end by BatonTestSupport's `TestChildren`, which the registry finds by name.
final class ChildRegistryTests: XCTestCase {
    /// The name the registry looks up is the observer's: renaming or moving `TestChildren`
    /// would otherwise silently leave every test's children running past its test case.
    func testTheRegistryFindsTheTestObserverByName() throws {
        let found = try XCTUnwrap(_typeByName(ChildRegistry.observerTypeName), "no type named \(ChildRegistry.observerTypeName)")
        XCTAssertTrue(found is ChildRegistryObserver.Type)
        XCTAssertTrue(found == TestChildren.self)
    }

    /// A child a test starts is in the registry while it runs and leaves it once reaped; once
    /// one has started, the registry has told `TestChildren`, which then observes XCTest.
    func testAChildIsRegisteredWhileItRuns() throws {
        let child = try RunningProcess(executable: URL(fileURLWithPath: "/bin/cat"), [])
        XCTAssertTrue(ChildRegistry.shared.stillRunning.contains { $0.pid == child.processIdentifier })
        XCTAssertTrue(ChildRegistry.shared.observer == TestChildren.self)
        child.terminate()
        child.waitForExit(timeout: 10)
        XCTAssertFalse(ChildRegistry.shared.stillRunning.contains { $0.pid == child.processIdentifier })
    }
}
