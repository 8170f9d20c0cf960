import Foundation
import XCTest

extension NatTopology {
    /// Skips the test, with the reason, where the topology cannot be made (not root, tools
    /// missing) or coturn or mosquitto is not installed.
    public static func skipUnlessAvailableWithRelayServers() throws {
        if let reason = unavailableReason { throw XCTSkip(reason) }
        for tool in ["/usr/bin/turnserver", "/usr/sbin/mosquitto"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is missing (scripts/install-deps.sh installs coturn and mosquitto)")
        }
    }

    /// Shuts the hosts and the topology down, and checks that nothing is left: no process in
    /// its hosts, not its folder.
    public func shutDownCheckingNothingIsLeft(file: StaticString = #filePath, line: UInt = #line) {
        TestHost.shutDown(hosts)
        shutDown()
        XCTAssertEqual(leftoverProcesses, [], "nothing left in the topology's hosts", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path), "the topology's folder is removed", file: file, line: line)
    }
}
