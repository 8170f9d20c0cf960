import BatonTestSupport
import XCTest

/// A test case whose devices run on test hosts (`TestHost`: network namespaces, each with its
/// own `dbus-daemon --system` and `avahi-daemon`). Every host a test puts in `hosts` is shut
/// down when the test ends, even when it failed, and must leave no process behind.
class TestHostTestCase: TrustTestCase {
    var hosts: [TestHost] = []

    /// Skips the test, with the reason, where test hosts cannot be made (they need root, which CI has).
    func skipUnlessTestHostsAvailable() throws {
        if let reason = TestHost.unavailableReason { throw XCTSkip(reason) }
    }

    override func tearDownWithError() throws {
        TestHost.shutDown(hosts)
        hosts = []
        try super.tearDownWithError()
    }
}

/// A `TestHostTestCase` all of whose tests need test hosts: skipped as a whole without them.
class TestHostsOnlyTestCase: TestHostTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        try skipUnlessTestHostsAvailable()
    }
}
