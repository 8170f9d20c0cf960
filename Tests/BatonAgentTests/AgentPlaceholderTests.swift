import XCTest
@testable import BatonAgent

final class AgentPlaceholderTests: XCTestCase {
    func testModuleLoads() { XCTAssertNotNil(Bundle.main) }
}
