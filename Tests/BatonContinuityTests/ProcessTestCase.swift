import BatonTestSupport
import XCTest

/// A test case that starts device processes: every process a test puts in `processes` is
/// terminated and waited for (bounded) when the test ends, even when it failed.
class ProcessTestCase: TrustTestCase {
    var processes: [RunningProcess] = []

    override func tearDownWithError() throws {
        for process in processes { process.terminate() }
        for process in processes { process.waitForExit(timeout: 10) }
        processes = []
        try super.tearDownWithError()
    }
}
