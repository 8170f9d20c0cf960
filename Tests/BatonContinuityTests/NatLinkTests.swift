@testable import BatonContinuity
import DeviceTestSupport
import BatonTestSupport
import Foundation
import XCTest

/// Links across two NATs (issue 29; docs/PROTOCOL.md, 7.1), with real parts only: the
/// four-host topology (`NatTopology`: two homes, each a device behind an nftables-masquerade
/// router, no route between them, and an internet host running a real coturn and a real
/// mosquitto, both from `baton relay server-config`'s files), and in each home a real device
/// process (`DeviceProbe --ice-link`) that gathers with the group's relay settings, takes the
/// other's IceDescription from a file the other wrote in a shared folder (the test hands the
/// path over; the broker's part is left out), connects, opens the link (admission gate, mutual
/// TLS 1.3) and sends bytes both ways. Each test prints the time from both processes starting
/// to both ends' channel up. Skipped, with the reason, where the hosts cannot be made (root).
final class NatLinkTests: TestHostTestCase {
    private var topology: NatTopology?

    override func setUpWithError() throws {
        try super.setUpWithError()
        try NatTopology.skipUnlessAvailableWithRelayServers()
    }

    override func tearDownWithError() throws {
        topology?.shutDownCheckingNothingIsLeft()
        topology = nil
        try super.tearDownWithError()
    }

    // MARK: The paths

    func testEndpointIndependentNATsGiveADirectPathAcrossThem() throws {
        let run = try linkAcross(.endpointIndependent, .endpointIndependent)
        // What the STUN server saw of each device is its router's public address.
        for (report, home) in zip(run.reports, run.homes) {
            let candidates = report.description?.candidates ?? []
            XCTAssertTrue(candidates.contains { IceDescription.candidateType($0) == "srflx" && $0.contains(" \(home.publicAddress) ") },
                          "\(candidates)")
            XCTAssertTrue(candidates.contains { IceDescription.candidateType($0) == "host" && $0.contains(" \(home.deviceAddress) ") },
                          "\(candidates)")
        }
        for report in run.reports {
            XCTAssertNil(report.failure, report.output)
            XCTAssertEqual(report.path, .serverReflexive, "hole-punched, not relayed: \(report.output)")
            XCTAssertEqual(report.received, Self.bytes)
            XCTAssertTrue(report.intact, report.output)
        }
    }

    func testSymmetricNATsGiveARelayedPathWithBytesBothWays() throws {
        let run = try linkAcross(.symmetric, .symmetric)
        for report in run.reports {
            XCTAssertNil(report.failure, report.output)
            XCTAssertEqual(report.path, .relayed, report.output)
            XCTAssertEqual(report.received, Self.bytes)
            XCTAssertTrue(report.intact, report.output)
        }
    }

    func testUDPBlockedBetweenTheHomesGivesARelayedPath() throws {
        let run = try linkAcross(.endpointIndependent, .endpointIndependent, blockingUDPBetweenHomes: true)
        for report in run.reports {
            XCTAssertNil(report.failure, report.output)
            XCTAssertEqual(report.path, .relayed, report.output)
            XCTAssertEqual(report.received, Self.bytes)
            XCTAssertTrue(report.intact, report.output)
        }
    }

    /// The descriptions through the real mosquitto (`BrokerSignalling`: mutual TLS with the
    /// group's certificates through each home's NAT, sealed and signed messages), then the
    /// direct path as with files.
    func testTheDescriptionsGoThroughTheRealBrokerAcrossTheNATs() throws {
        let run = try linkAcross(.endpointIndependent, .endpointIndependent, throughBroker: true)
        for report in run.reports {
            XCTAssertTrue(report.brokerConnected, report.output)
            XCTAssertNil(report.failure, report.output)
            XCTAssertEqual(report.path, .serverReflexive, report.output)
            XCTAssertEqual(report.received, Self.bytes)
            XCTAssertTrue(report.intact, report.output)
        }
    }

    /// coturn stopped, behind symmetric NATs: no server-reflexive or relayed candidate, and the
    /// host ones cannot reach across. Each side fails typed (gathering, or the checks by their
    /// deadline), never hangs.
    func testWithCoturnStoppedTheAttemptFailsTypedWithinTheDeadline() throws {
        let run = try linkAcross(.symmetric, .symmetric, coturnStopped: true, connectDeadline: 20)
        for (index, report) in run.reports.enumerated() {
            XCTAssertNil(report.path, report.output)
            guard let failure = report.failure else {
                XCTAssertEqual(run.reports[1 - index].failure?.stage, "gather", "only a side whose peer offered nothing has no failure")
                continue
            }
            switch (failure.stage, failure.error) {
            case ("gather", "gatheringTimedOut"), ("gather", "noCandidates"),
                 ("connect", "connectTimedOut"), ("connect", "connectivityFailed"): break
            default: XCTFail("\(failure): \(report.output)")
            }
        }
    }

    /// With relayed candidates only and coturn stopped: `noRelayCandidate` (or the gathering
    /// deadline), as soon as gathering ends.
    func testARelayOnlyAttemptWithCoturnStoppedFailsTypedAtGathering() throws {
        let run = try linkAcross(.symmetric, .symmetric, coturnStopped: true, relayOnly: true)
        for report in run.reports {
            guard let failure = report.failure else { return XCTFail("no failure: \(report.output)") }
            XCTAssertEqual(failure.stage, "gather", report.output)
            XCTAssertTrue(["noRelayCandidate", "gatheringTimedOut"].contains(failure.error), report.output)
        }
    }

    // MARK: The topology itself

    /// No route between the homes: each router knows only its home and the internet, so a
    /// packet for the other home's device has nowhere to go.
    func testTheHomesHaveNoRouteToEachOther() throws {
        let topology = try NatTopology(.endpointIndependent, .endpointIndependent)
        self.topology = topology
        let a = topology.homes[0], b = topology.homes[1]
        XCTAssertNoThrow(try a.router.run(inNetwork: ["/usr/sbin/ip", "route", "get", NatTopology.internetAddress]))
        XCTAssertNoThrow(try a.router.run(inNetwork: ["/usr/sbin/ip", "route", "get", b.publicAddress]))
        XCTAssertThrowsError(try a.router.run(inNetwork: ["/usr/sbin/ip", "route", "get", b.deviceAddress]))
        XCTAssertThrowsError(try b.router.run(inNetwork: ["/usr/sbin/ip", "route", "get", a.deviceAddress]))
        XCTAssertThrowsError(try topology.internet.run(inNetwork: ["/usr/sbin/ip", "route", "get", a.deviceAddress]))
    }

    // MARK: Running the devices

    private static let bytes = 100_000

    /// One device process's report, from its `ice …` lines.
    private struct Report {
        var path: IcePath?
        var received: Int?
        var intact = false
        var failure: (stage: String, error: String)?
        var channelUpAt: Double?
        /// It connected to the broker (`--broker`).
        var brokerConnected = false
        /// The description it offered (read from its file).
        var description: IceDescription?
        var output: String

        init(_ output: String) {
            self.output = output
            for line in output.split(separator: "\n") where line.hasPrefix("ice ") {
                let words = line.split(separator: " ").map(String.init)
                switch words[1] {
                case "broker" where words.count >= 3:
                    if words[2] == "connected" { brokerConnected = true }
                case "description" where words.count == 3:
                    description = (try? Data(contentsOf: URL(fileURLWithPath: words[2]))).flatMap { try? IceDescription.decode($0) }
                case "channel" where words.count >= 6:
                    path = IcePath(rawValue: words[2])
                    channelUpAt = Double(words[words.count - 1])
                case "received" where words.count >= 4:
                    received = Int(words[2])
                    intact = words[3] == "intact"
                case "failed" where words.count >= 4:
                    failure = (words[2], words[3])
                default:
                    break
                }
            }
        }
    }

    private struct Run {
        var reports: [Report]
        var homes: [NatTopology.Home]
    }

    /// The topology with these NATs, coturn (stopped again before the devices start, with
    /// `coturnStopped`) and mosquitto on
    /// the internet host, the group's two devices (relay settings pointing at the internet
    /// host) as `DeviceProbe --ice-link` in the homes (the descriptions through files, or
    /// with `throughBroker` through mosquitto); returns once both have ended their part
    /// (done or failed), every wait bounded.
    private func linkAcross(_ a: NatTopology.Mapping, _ b: NatTopology.Mapping, blockingUDPBetweenHomes: Bool = false,
                            coturnStopped: Bool = false, relayOnly: Bool = false, throughBroker: Bool = false, connectDeadline: Double = 40) throws -> Run {
        let topology = try NatTopology(a, b, blockingUDPBetweenHomes: blockingUDPBetweenHomes)
        self.topology = topology
        let (authority, folders) = try group(["laptop", "desktop"])
        let admin = config("admin").deviceDirectory
        _ = try authority.issueDevice(named: "admin", writingTo: admin)
        let internet = NatTopology.internetAddress
        _ = try authority.setRelaySettings(
            RelaySettings(turn: [try TURNServer(uri: "turn:\(internet):3478")], broker: try BrokerAddress(uri: "mqtts://\(internet):8883"),
                          turnSecret: RelaySettings.generatedSecret()),
            updating: [admin, folders["laptop"]!, folders["desktop"]!])
        let servers = topology.folder.appendingPathComponent("servers")
        let made = try runProduct("baton", ["relay", "server-config", "--out", servers.path, "--allow-peer", NatTopology.internetPeerRange,
                                            "--config", config("admin").url.path], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        let coturn = try topology.startCoturn(from: servers)
        if coturnStopped {
            coturn.terminate()
            coturn.waitForExit(timeout: 20)
            XCTAssertFalse(coturn.isRunning, "coturn stopped")
        }
        try topology.startMosquitto(from: servers)

        let exchange = topology.folder.appendingPathComponent("exchange")
        try FileManager.default.createDirectory(at: exchange, withIntermediateDirectories: true)
        let identifiers = try ["laptop", "desktop"].map { try DeviceIdentity.load(from: folders[$0]!).identifier }
        let started = Date()
        let probes = try zip(["laptop", "desktop"], topology.homes).enumerated().map { index, pair in
            try pair.1.device.start([productURL("DeviceProbe").path, folders[pair.0]!.path, "--ice-link",
                                     "--exchange", exchange.path, "--peer-device", identifiers[1 - index],
                                     "--connect-deadline", "\(connectDeadline)"] + (relayOnly ? ["--relay-only"] : []) + (throughBroker ? ["--broker"] : []))
        }
        let descriptions = probes.map { $0.waitForLine(containing: "ice description ", timeout: 60) }
        if throughBroker {
            // They find each other through mosquitto.
        } else if let first = descriptions[0], let second = descriptions[1] {
            probes[0].send("remote " + second.replacingOccurrences(of: "ice description ", with: ""))
            probes[1].send("remote " + first.replacingOccurrences(of: "ice description ", with: ""))
        } else {
            for probe in probes { probe.send("quit") }  // a side whose peer offered nothing has nothing to wait for
        }
        // Gathering (10 s), the checks (the deadline), the gate (5 s) and TLS (15 s) bound each probe.
        for probe in probes { _ = probe.waitForLine(containing: "ice done", timeout: 60 + connectDeadline + 30) }
        for probe in probes { probe.send("quit") }
        for probe in probes { probe.waitForExit(timeout: 20) }
        let reports = probes.map { Report($0.output) }
        let ups = reports.compactMap(\.channelUpAt)
        if ups.count == 2, let last = ups.max() {
            let path = reports[0].path.map(\.rawValue) ?? "?"
            print("NAT topology (\(a), \(b)\(blockingUDPBetweenHomes ? ", UDP blocked between homes" : "")): both processes started to the "
                  + "channel up at both ends (\(path)): " + String(format: "%.2f s", last - started.timeIntervalSince1970))
        }
        for (name, report) in zip(["laptop", "desktop"], reports) {
            if let failure = report.failure { print("NAT topology (\(a), \(b)): the \(name) failed at \(failure.stage): \(failure.error)") }
        }
        return Run(reports: reports, homes: topology.homes)
    }
}
