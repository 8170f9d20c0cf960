import Foundation
import XCTest

extension TestHost {
    /// Shuts every host down (`shutDown()`) and fails the test for each process one left
    /// behind: what a test case that made hosts does at its teardown.
    public static func shutDown(_ hosts: [TestHost], file: StaticString = #filePath, line: UInt = #line) {
        for host in hosts {
            host.shutDown()
            XCTAssertEqual(host.leftoverProcesses, [], "processes left in \(host.name)", file: file, line: line)
        }
    }
}
