@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// The listening port rotates with the DNS-SD name, between real hosts (network namespaces
/// with their own `dbus-daemon --system` and `avahi-daemon`; see `TestHost`), read with Avahi's
/// own `avahi-browse` as an onlooker on the link would. Needs root, which CI has.
final class PortRotationBetweenHostsTests: TestHostsOnlyTestCase {
    /// One resolved `avahi-browse --parsable` line: `=;iface;IPv4;name;type;domain;host;address;port;txt`.
    private struct Published {
        let name: String
        let port: UInt16

        init(_ line: String) throws {
            let fields = line.split(separator: ";", omittingEmptySubsequences: false)
            guard fields.count == 10, let port = UInt16(fields[8]) else { throw TestHost.HostError.failed("not a resolved entry: \(line)") }
            name = String(fields[3])
            self.port = port
        }
    }

    /// Whether a TCP connection from `host` to `address:port` is accepted (bash's /dev/tcp:
    /// status 0 when connected, not 0 when refused).
    private func connects(from host: TestHost, to address: String, port: UInt16) -> Bool {
        (try? host.run(inNetwork: ["/bin/bash", "-c", "exec 3<>/dev/tcp/\(address)/\(port)"])) != nil
    }

    /// A device listening on port 0 (A, rotating every 3 s, each old port kept 4 s) and one
    /// linked to it (B), on two hosts. After a rotation a browser on B's host sees A's new
    /// record on a different port; once A says the grace is over, the old port refuses
    /// connections. The link made before the rotation is still the only one, and an activity
    /// continues over it, streams included (the grant names the port A listens on now).
    /// A device started on B's host after the rotations (C) finds A and links to it.
    func testThePortRotatesWithTheNameAndLinksOutliveIt() throws {
        let paths = try devices("A", "B", "C")
        let probe = productURL("DeviceProbe").path
        let (a, b) = try TestHost.pair([probe, paths[0], "--ok", "--streams", "--listen", "0.0.0.0", "--rotate", "3", "--rotation-grace", "4"],
                                       [probe, paths[1], "--ok", "--listen", "0.0.0.0"])
        hosts = [a, b]
        XCTAssertTrue(b.process.waitForNearby(from: "A"), b.process.output + "\non A:\n" + a.process.output)
        // What an onlooker sees: avahi-browse's own output.
        let browse = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", "_baton._tcp"])
        defer { browse.terminate() }
        let first = try Published(XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;"), browse.output))
        let next = try Published(XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;", occurrence: 2), browse.output))
        XCTAssertNotEqual(next.name, first.name, "a new instance name")
        XCTAssertNotEqual(next.port, first.port, "a new port with the new name: \(browse.output)")

        // The old port: open during its grace, refused once A has stopped listening on it.
        XCTAssertTrue(a.process.waitFor(.stoppedListening(port: first.port)), a.process.output)
        XCTAssertFalse(connects(from: b, to: a.address, port: first.port), "port \(first.port) still accepts after its grace")

        // The link made before the rotations carries a continuation, and its streams, after them.
        b.process.send("continue 10")
        XCTAssertTrue(b.process.waitForContinued(from: "A"), b.process.output)
        b.process.send("streams 100000")
        // The probe's answer to `streams` (its protocol, not a log): every byte, in order.
        XCTAssertNotNil(b.process.waitForLine(containing: "stream received 100000"), b.process.output + "\non A:\n" + a.process.output)

        // A device that starts now finds A where it listens now, and links.
        let c = try b.start([probe, paths[2], "--ok", "--listen", "0.0.0.0"])
        defer { c.terminate() }
        XCTAssertTrue(c.waitForNearby(from: "A"), c.output + "\non A:\n" + a.process.output)

        let linkEvents = b.process.diagnosticEvents.filter {
            switch $0 {
            case .linked("A", _), .unlinked("A", _): true
            default: false
            }
        }
        XCTAssertEqual(linkEvents.count, 1, "one link, never dropped or remade: \(b.process.output)")
    }

    /// A device given its port (`--port`, as `--listen host:port` and static peers rely on)
    /// keeps it: its name and token rotate, the port published stays and keeps accepting.
    func testAGivenPortStaysAcrossRotations() throws {
        let paths = try devices("A", "B")
        let probe = productURL("DeviceProbe").path
        let port: UInt16 = 47123
        let (a, b) = try TestHost.pair([probe, paths[0], "--ok", "--listen", "0.0.0.0", "--port", "\(port)", "--rotate", "1", "--rotation-grace", "1"],
                                       [probe, paths[1], "--ok", "--listen", "0.0.0.0"])
        hosts = [a, b]
        XCTAssertTrue(b.process.waitForNearby(from: "A"), b.process.output + "\non A:\n" + a.process.output)
        // What an onlooker sees: avahi-browse's own output.
        let browse = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", "_baton._tcp"])
        defer { browse.terminate() }
        let first = try Published(XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;"), browse.output))
        let later = try Published(XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;", occurrence: 3), browse.output))
        XCTAssertNotEqual(later.name, first.name, "the name rotates")
        XCTAssertEqual(first.port, port)
        XCTAssertEqual(later.port, port)
        XCTAssertTrue(connects(from: b, to: a.address, port: port), "the given port still accepts")
        XCTAssertEqual(a.process.diagnosticEvents.filter { if case .listening = $0 { true } else { false } }.count, 1,
                       "no new listener: \(a.process.output)")
    }
}
