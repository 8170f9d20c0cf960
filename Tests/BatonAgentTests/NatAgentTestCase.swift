import DeviceTestSupport
import XCTest

/// Agents across the NAT test hosts (`NatTopology`): skipped, with the reason, without root or
/// the relay servers; after each test its processes end, then the hosts and the topology, and
/// nothing of them is left.
class NatAgentTestCase: AgentTestCase {
    /// The topology the test made, shut down after it.
    var topology: NatTopology?

    override func setUpWithError() throws {
        try super.setUpWithError()
        try NatTopology.skipUnlessAvailableWithRelayServers()
    }

    override func tearDownWithError() throws {
        for process in processes { process.terminate() }
        for process in processes { process.waitForExit(timeout: 10) }
        topology?.shutDownCheckingNothingIsLeft()
        topology = nil
        try super.tearDownWithError()
    }
}
