import XCTest
import Baton
@testable import BatonAgent

/// The agent protocol's encodings, both ways.
final class AgentInterfaceTests: XCTestCase {
    func testNearbyActivityRoundTrips() {
        let activity = NearbyActivity(device: "laptop", sequence: 7, activityType: "com.example.mail.compose", title: "Hi",
                                      appID: "com.example.mail", teamIdentifier: "TEAM", webpageURL: URL(string: "https://example.com/a"))
        XCTAssertEqual(AgentInterface.nearbyList(from: AgentInterface.encode([activity])), [activity])
    }

    func testMalformedAdvertisementIsRefused() {
        guard case .malformed = AppAdvertisement.decode(.dictionary(["type": .string("x")])) else { return XCTFail("accepted without an id") }
        guard case .none = AppAdvertisement.decode(.dictionary([:])) else { return XCTFail("empty is none") }
    }

    func testErrorCodesRoundTrip() {
        for code in [CocoaError.Code.userActivityConnectionUnavailable, .userActivityHandoffFailed, .userActivityHandoffUserInfoTooLarge,
                     .userActivityRemoteApplicationTimedOut, .featureUnsupported] {
            XCTAssertEqual(HandoffFailure.code(forErrorName: HandoffFailure.AgentErrorName(code).rawValue), code)
        }
    }
}
