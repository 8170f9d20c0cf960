@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// Issue 29: signalling through the broker the group's relay settings name
/// (`BrokerSignallingSettings(relaySettings:identityFolder:)`, `.load(from:)`), the broker
/// verified against the group's CA: a real mosquitto configured with `RelayServerConfig`'s output
/// and the broker certificate the group issued admits two devices that exchange a blob; a
/// broker whose certificate another CA issued is refused in the handshake (typed). Their
/// `BrokerEvent`s go to `Diagnostics` as `DiagnosticEvent`s.
final class BrokerRelaySettingsTests: ProcessTestCase {
    func testSettingsComeFromTheGroupsRelaySettingsWithTheGroupCA() throws {
        let folder = URL(fileURLWithPath: "/var/lib/baton/device")
        let relay = RelaySettings(broker: BrokerAddress(host: "mqtt.example.org", port: 8884), version: 2)
        let settings = try XCTUnwrap(BrokerSignallingSettings(relaySettings: relay, identityFolder: folder))
        XCTAssertEqual(settings.host, "mqtt.example.org")
        XCTAssertEqual(settings.port, 8884)
        XCTAssertEqual(settings.brokerAuthority, folder.appendingPathComponent("group.pem"), "the group's CA, not the system's")
        XCTAssertEqual(settings.messageLimit, BrokerSignallingSettings(host: "x").messageLimit, "the other bounds at their defaults")
        let turnOnly = RelaySettings(turn: [TURNServer(host: "turn.example.org")], turnSecret: Data("0123456789abcdef".utf8))
        XCTAssertNil(BrokerSignallingSettings(relaySettings: turnOnly, identityFolder: folder))
    }

    /// The group's devices, relay settings naming a broker on a free loopback port written
    /// into their folders, and each device's broker settings loaded from its folder.
    private func setUpGroup() throws -> (GroupAuthority, [String: URL], RelaySettings, [String: BrokerSignallingSettings]) {
        let (authority, folders) = try group(["laptop", "phone"])
        XCTAssertNil(try BrokerSignallingSettings.load(from: folders["laptop"]!), "no relay settings yet")
        let port = try MosquittoBroker.freePort()
        let relay = try authority.setRelaySettings(RelaySettings(broker: try BrokerAddress(uri: "mqtts://127.0.0.1:\(port)")),
                                                   updating: Array(folders.values))
        var settings: [String: BrokerSignallingSettings] = [:]
        for (name, folder) in folders {
            var loaded = try XCTUnwrap(try BrokerSignallingSettings.load(from: folder))
            XCTAssertEqual(loaded, BrokerSignallingSettings(relaySettings: relay, identityFolder: folder))
            loaded.firstRetryDelay = .milliseconds(200)
            loaded.maximumRetryDelay = .seconds(1)
            settings[name] = loaded
        }
        return (authority, folders, relay, settings)
    }

    /// Routes `probe`'s events to `diagnostics` too, as a node does.
    @MainActor
    private static func publish(_ probe: BrokerProbe, to diagnostics: Diagnostics) {
        let previous = probe.signalling.onEvent
        probe.signalling.onEvent = { event in
            previous?(event)
            diagnostics.publish(DiagnosticEvent(event))
        }
    }

    func testTwoDevicesExchangeABlobThroughTheGroupsBrokerFromServerConfig() throws {
        let (authority, folders, relay, settings) = try setUpGroup()
        let serverFolder = root.appendingPathComponent("mosquitto")
        try FileManager.default.createDirectory(at: serverFolder, withIntermediateDirectories: true)
        let broker = try authority.issueBrokerCertificate(host: "127.0.0.1")
        // What `baton relay server-config` writes for the broker: the group CA as the broker
        // trusts it (re-certified with cRLSign) and the group's CRL.
        try Data(try authority.brokerClientAuthority().serializeAsPEM().pemString.utf8)
            .write(to: serverFolder.appendingPathComponent("baton-group-ca.pem"))
        try Data(try authority.certificateRevocationList().pemString.utf8)
            .write(to: serverFolder.appendingPathComponent(RelayServerConfig.crlFileName))
        try Data(broker.certificatePEM.utf8).write(to: serverFolder.appendingPathComponent("baton-broker.pem"))
        let keyFile = serverFolder.appendingPathComponent("baton-broker-key.pem")
        try Data(broker.keyPEM.utf8).write(to: keyFile)
        chmod(keyFile.path, 0o600)
        // RelayServerConfig's output; only the bind address and the user (the test's own) are added.
        let port = relay.broker!.port
        let text = try XCTUnwrap(RelayServerConfig.mosquitto(relay, folder: serverFolder.path))
            .replacingOccurrences(of: "listener \(port)\n", with: "listener \(port) 127.0.0.1\n")
            + "user \(String(cString: getpwuid(getuid())!.pointee.pw_name))\npersistence false\nlog_dest stderr\nlog_type all\n"
        let conf = serverFolder.appendingPathComponent("baton.conf")
        try Data(text.utf8).write(to: conf)
        let mosquitto = try RunningProcess(executable: URL(fileURLWithPath: "/usr/sbin/mosquitto"), ["-c", conf.path])
        processes.append(mosquitto)
        XCTAssertNotNil(mosquitto.waitForLine(containing: " running", timeout: 30), mosquitto.output)

        try MainActor.assumeIsolated {
            let diagnostics = Diagnostics()
            var published: [DiagnosticEvent] = []
            let observation = diagnostics.observe { published.append($0) }
            defer { observation.cancel() }
            let laptop = try BrokerProbe(folder: folders["laptop"]!, settings: settings["laptop"]!)
            let phone = try BrokerProbe(folder: folders["phone"]!, settings: settings["phone"]!)
            defer { laptop.signalling.stop(); phone.signalling.stop() }
            Self.publish(laptop, to: diagnostics)
            Self.publish(phone, to: diagnostics)
            spin(until: { laptop.signalling.isConnected && phone.signalling.isConnected })

            try laptop.signalling.send(Data("offer".utf8), to: phone.identity.identifier)
            spin(until: { phone.received.count == 1 })
            XCTAssertEqual(phone.received.first?.from, laptop.identity.identifier)
            XCTAssertEqual(phone.received.first?.blob, Data("offer".utf8))
            XCTAssertEqual(laptop.failures + phone.failures, [], mosquitto.output)
            XCTAssertEqual(published.filter { $0 == .brokerConnected }.count, 2)
        }
    }

    func testABrokerWhoseCertificateIsNotTheGroupsIsRefused() throws {
        let (_, folders, _, settings) = try setUpGroup()
        let laptopSettings = settings["laptop"]!
        // A broker admitting the group's devices, but with a certificate another CA issued.
        let broker = try MosquittoBroker(folder: root.appendingPathComponent("foreign-broker"),
                                         clientAuthority: folders["laptop"]!.appendingPathComponent("group.pem"), port: laptopSettings.port)
        try broker.start()
        defer { broker.stop() }
        try MainActor.assumeIsolated {
            let diagnostics = Diagnostics()
            var published: [DiagnosticEvent] = []
            let observation = diagnostics.observe { published.append($0) }
            defer { observation.cancel() }
            let laptop = try BrokerProbe(folder: folders["laptop"]!, settings: laptopSettings)
            defer { laptop.signalling.stop() }
            Self.publish(laptop, to: diagnostics)
            spin(until: { laptop.failures.count >= 2 })
            XCTAssertEqual(laptop.connections, 0, broker.output)
            XCTAssertEqual(laptop.failures.first, .tls, "the broker's certificate is not the group's")
            guard case .brokerConnectFailed(reason: .tls, code: nil, _)? = published.first else {
                return XCTFail("\(published)")
            }
            XCTAssertFalse(published.contains(.brokerConnected))
        }
    }
}
