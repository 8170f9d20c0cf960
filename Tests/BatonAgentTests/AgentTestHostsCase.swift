import BatonTestSupport
import Foundation
import XCTest

/// Agents and apps on test hosts (`TestHost`: network namespaces, each with its own system
/// bus and avahi-daemon). Needs root, which CI has; skipped without it. Every host is shut
/// down at teardown, and the test fails if a process was left in one.
class AgentTestHostsCase: AgentTestCase {
    var hosts: [TestHost] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        if let reason = TestHost.unavailableReason { throw XCTSkip(reason) }
    }

    override func tearDownWithError() throws {
        TestHost.shutDown(hosts)
        hosts = []
        try super.tearDownWithError()
    }
}
