@testable import Baton
import Foundation
import XCTest

/// The launch options an app finds in its environment (`BATON_CONTINUE_ACTIVITY_TYPE`): taken
/// once, removed from the environment, and only a plausible activity type. (Launching a real
/// app with it is in BatonAgentTests' DesktopAppLauncherTests.)
final class LaunchEnvironmentTests: XCTestCase {
    private let variable = LaunchEnvironment.continueActivityTypeVariable

    override func tearDown() { unsetenv(variable) }

    func testTheTypeIsTakenOnceAndRemovedFromTheEnvironment() {
        CapturedLog.install()
        setenv(variable, "com.example.mail.compose", 1)
        let options = LaunchEnvironment.takeLaunchOptions()
        XCTAssertEqual(options[.userActivityType] as? String, "com.example.mail.compose")
        XCTAssertNil(getenv(variable), "a process the app starts does not inherit it")
        XCTAssertTrue(LaunchEnvironment.takeLaunchOptions().isEmpty)
    }

    func testAValueThatIsNotAnActivityTypeIsDroppedAndLogged() {
        CapturedLog.install()
        for bad in ["", "evil\u{1B}[2J", String(repeating: "a", count: LaunchEnvironment.maximumTypeLength + 1)] {
            setenv(variable, bad, 1)
            XCTAssertTrue(LaunchEnvironment.takeLaunchOptions().isEmpty, bad)
            XCTAssertNil(getenv(variable))
        }
        XCTAssertFalse(CapturedLog.shared.messages(mentioning: "evil\\u{1B}[2J").isEmpty, "logged, escaped")
    }
}
