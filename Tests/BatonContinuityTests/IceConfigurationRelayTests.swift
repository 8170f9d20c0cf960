@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// Issue 29: the ICE configuration a device makes from the group's relay settings
/// (`IceConfiguration(relaySettings:deviceIdentifier:now:)`): each TURN server with TURN REST
/// credentials from the group's secret, STUN from the first plain TURN server; and a real
/// coturn on loopback, with the group's secret, giving relayed candidates to those credentials
/// and none once they expired.
final class IceConfigurationRelayTests: ProcessTestCase {
    private static let secret = Data("0123456789abcdef0123456789abcdef".utf8)

    func testTheGroupsTURNServersBecomeRelaysWithRESTCredentials() throws {
        let settings = RelaySettings(turn: [TURNServer(host: "turn.example.org", port: 3478, transport: .tls),
                                            TURNServer(host: "turn.example.org", port: 3479, transport: .tcp),
                                            TURNServer(host: "192.0.2.7", port: 3480, transport: .udp)],
                                     broker: BrokerAddress(host: "mqtt.example.org"), turnSecret: Self.secret, version: 3)
        let now = Date(timeIntervalSince1970: 1_800_000_000.4)
        let configuration = IceConfiguration(relaySettings: settings, deviceIdentifier: "dev-1", now: now,
                                             validFor: .seconds(600), hostAddresses: ["127.0.0.1"])
        let credentials = settings.turnCredentials(for: "dev-1", validFor: .seconds(600), now: now)
        XCTAssertEqual(credentials.username, "1800000600:dev-1")
        XCTAssertEqual(configuration.turnServers, [
            IceRelay(host: "turn.example.org", port: 3478, transport: .tls, username: credentials.username, password: credentials.password),
            IceRelay(host: "turn.example.org", port: 3479, transport: .tcp, username: credentials.username, password: credentials.password),
            IceRelay(host: "192.0.2.7", port: 3480, transport: .udp, username: credentials.username, password: credentials.password),
        ])
        XCTAssertEqual(configuration.stunServer, IceServer(host: "turn.example.org", port: 3479), "the first TURN server not over TLS")
        XCTAssertEqual(configuration.turnCredentialsExpire, Date(timeIntervalSince1970: 1_800_000_600))
        XCTAssertEqual(configuration.hostAddresses, ["127.0.0.1"])
        XCTAssertFalse(configuration.relayOnly)

        let daily = IceConfiguration(relaySettings: settings, deviceIdentifier: "dev-1", now: now)
        XCTAssertEqual(daily.turnCredentialsExpire, Date(timeIntervalSince1970: 1_800_000_000 + 86_400), "valid a day by default")

        let tlsOnly = IceConfiguration(relaySettings: RelaySettings(turn: [TURNServer(host: "turn.example.org", port: 5349, transport: .tls)],
                                                                    turnSecret: Self.secret),
                                       deviceIdentifier: "dev-1", now: now)
        XCTAssertNil(tlsOnly.stunServer, "no STUN over TLS")
        XCTAssertEqual(tlsOnly.turnServers.map(\.transport), [.tls])

        let brokerOnly = IceConfiguration(relaySettings: RelaySettings(broker: BrokerAddress(host: "mqtt.example.org")),
                                          deviceIdentifier: "dev-1", now: now)
        XCTAssertEqual(brokerOnly, IceConfiguration(), "no relay: host candidates only")
    }

    func testCoturnRelaysForTheMappedCredentialsUntilTheyExpire() throws {
        let port = try startCoturn(secret: String(decoding: Self.secret, as: UTF8.self), allowLoopbackPeers: false)
        let settings = RelaySettings(turn: [TURNServer(host: "127.0.0.1", port: port)], turnSecret: Self.secret, version: 1)
        try settings.validate()
        try MainActor.assumeIsolated {
            @MainActor func gather(validFor: Duration) throws -> Outcome<IceDescription> {
                let configuration = IceConfiguration(relaySettings: settings, deviceIdentifier: "laptop-0123", validFor: validFor,
                                                     hostAddresses: ["127.0.0.1"], relayOnly: true, gatheringDeadline: .seconds(30))
                let session = try IceSession(configuration: configuration, role: .controlling)
                defer { session.close() }
                let description = Outcome { try await session.localDescription() }
                spin(until: { description.done })
                return description
            }
            let candidates = try gather(validFor: .seconds(600)).get().candidates
            XCTAssertFalse(candidates.isEmpty)
            XCTAssertTrue(candidates.allSatisfy { IceDescription.candidateType($0) == "relay" }, "\(candidates)")

            let expired = try gather(validFor: .seconds(-60))
            guard case .noRelayCandidate? = expired.error as? IceError else {
                return XCTFail("expired credentials: \(String(describing: expired.error))")
            }
        }
    }
}
