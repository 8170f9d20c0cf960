@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// `baton pair` between two test hosts (network namespaces, each with its own avahi-daemon):
/// the new device, given no address, finds the window through DNS-SD, whose record says
/// nothing but `v=1`, and the record is withdrawn when the window closes.
final class DiscoveredPairingTests: TestHostsOnlyTestCase {
    func testANewDeviceFindsTheWindowThroughAvahiAndTheRecordSaysNothingAboutTheUser() throws {
        let admin = config("admin").url.path, newcomer = root.appendingPathComponent("new").path
        for command in [["group", "create", "Ada"], ["device", "add", "Laptop", "--install"]] {
            let result = try runProduct("baton", command + ["--config", admin], timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        let baton = productURL("baton").path
        // Each host stays up after its command (its first process is the shell), so the record's
        // withdrawal can be seen from the other.
        let (a, b) = try TestHost.pair(["/bin/sh", "-c", "\"$0\" pair --accept --config \"$1\"; echo \"window ended $?\"; read -r end", baton, admin],
                                       ["/bin/sh", "-c", "read -r go && \"$0\" pair --name Phone --config \"$1\"; echo \"newcomer ended $?\"; read -r end",
                                        baton, newcomer])
        hosts = [a, b]
        let instance = try XCTUnwrap(a.process.publishedServiceName(), a.process.output)
        XCTAssertTrue(instance.hasPrefix("pair-"), instance)

        // What anyone on the link sees of the window: a random name and `v=1`, nothing else.
        let browse = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", PairingAdvertisement.serviceType])
        defer { browse.terminate() }
        let record = try XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;"), browse.output)
        let fields = record.split(separator: ";", omittingEmptySubsequences: false)
        XCTAssertEqual(fields.count, 10, record)
        XCTAssertEqual(String(fields[3]), instance, record)
        XCTAssertEqual(String(fields[9]), "\"v=1\"", "TXT v=1 only: \(record)")
        for secret in ["Ada", "Laptop", "Phone"] { XCTAssertFalse(record.contains(secret), record) }

        b.process.send("go")
        let windowCode = a.process.pairingCode(onWindow: true)
        XCTAssertNotNil(windowCode, a.process.output)
        XCTAssertEqual(windowCode, b.process.pairingCode(onWindow: false), "\(a.process.output)\n\(b.process.output)")
        // What the newcomer's person reads: where the window it found is.
        XCTAssertNotNil(b.process.waitForLine(containing: "pairing with 10.77.0.1:"), b.process.output)
        a.process.send("y")
        b.process.send("y")
        XCTAssertTrue(b.process.waitFor(.joinedGroup(group: "Ada", device: "Phone")), b.process.output)
        XCTAssertTrue(a.process.waitFor(.paired(device: "Phone")), a.process.output)
        // Closed, the window is withdrawn (each host's shell says how its command ended; avahi-browse, what an onlooker sees).
        XCTAssertNotNil(a.process.waitForLine(containing: "window ended 0"), a.process.output)
        XCTAssertNotNil(b.process.waitForLine(containing: "newcomer ended 0"), b.process.output)
        XCTAssertNotNil(browse.waitForLine(containing: "-;veth0;IPv4;\(instance);"), browse.output)
    }
}
