@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// Issue 26, "One Avahi client per process, shared by discovery and pairing", in this process:
/// discovery, a published pairing window and a search for windows all go through the one
/// `AvahiConnection` handed to them (state of the loop handed in, not reached through a
/// global), and when they stop every Avahi object (poll, client,
/// browsers, resolvers, entry groups) and every GLib callback box is released. Whatever this
/// machine has (no system bus, a bus without avahi-daemon, a real daemon): the test host test
/// (`OneAvahiClientBetweenHostsTests`) counts the clients against a real daemon.
final class AvahiConnectionTests: XCTestCase {
    func testDiscoveryAndPairingShareOneConnectionAndReleaseEverything() throws {
        let key = try DiscoveryKey(bytes: Data(repeating: 7, count: 32))
        MainActor.assumeIsolated {
            drainIdle()  // the main-queue bridge, and anything earlier tests left queued
            let boxes = LoopDiagnostics.liveCallbackBoxes, objects = AvahiConnection.liveObjects
            let avahi = AvahiConnection()
            for round in 0..<3 {
                let discovery = ServiceDiscovery(key: key, port: 4242, avahi: avahi, found: { _ in })
                var settled = false
                discovery.onSettled = { settled = true }
                discovery.start()
                let advertisement = PairingAdvertisement(port: 4243, avahi: avahi)
                advertisement.start()
                // Discovery publishes and browses, the window publishes: three users, one connection.
                XCTAssertEqual(avahi.userCount, 3, "round \(round)")
                XCTAssertLessThanOrEqual(AvahiConnection.liveClients, 1, "round \(round)")
                var search: Result<[PeerAddress], PairingError>?
                Task { @MainActor in search = await PairingBrowser.find(within: .milliseconds(300), avahi: avahi) }
                spin(until: { search != nil })
                XCTAssertLessThanOrEqual(AvahiConnection.liveClients, 1, "round \(round)")
                XCTAssertEqual(avahi.userCount, 3, "the search left")
                if discovery.state != .running { spin(until: { settled }) }
                discovery.stop()
                advertisement.stop()
                XCTAssertEqual(discovery.state, .stopped)
                // Freed from the loop, never inside an Avahi callback.
                spin(until: { AvahiConnection.liveObjects == objects })
                XCTAssertEqual(AvahiConnection.liveClients, 0)
                drainIdle()
                XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, boxes, "round \(round)")
            }
        }
    }

    /// A user that goes without stopping (its owner dropped it) leaves the connection too.
    func testAUserDroppedWithoutStoppingLeavesTheConnection() throws {
        MainActor.assumeIsolated {
            drainIdle()
            let objects = AvahiConnection.liveObjects
            let avahi = AvahiConnection()
            var advertisement: PairingAdvertisement? = PairingAdvertisement(port: 4243, avahi: avahi)
            advertisement!.start()
            XCTAssertEqual(avahi.userCount, 1)
            advertisement = nil
            XCTAssertEqual(avahi.userCount, 0)
            spin(until: { AvahiConnection.liveObjects == objects })
        }
    }

    /// Nothing is shared through a global: users of another connection (another owner's) are
    /// not this one's, and a user given none is on a client of its own.
    func testUsersJoinOnlyTheConnectionTheyAreHanded() throws {
        MainActor.assumeIsolated {
            drainIdle()
            let objects = AvahiConnection.liveObjects
            let mine = AvahiConnection(), theirs = AvahiConnection()
            let advertisement = PairingAdvertisement(port: 4243, avahi: mine)
            let other = PairingAdvertisement(port: 4244, avahi: theirs)
            let own = PairingAdvertisement(port: 4245)
            for each in [advertisement, other, own] { each.start() }
            XCTAssertEqual(mine.userCount, 1)
            XCTAssertEqual(theirs.userCount, 1)
            for each in [advertisement, other, own] { each.stop() }
            XCTAssertEqual(mine.userCount, 0)
            XCTAssertEqual(theirs.userCount, 0)
            spin(until: { AvahiConnection.liveObjects == objects })
        }
    }
}
