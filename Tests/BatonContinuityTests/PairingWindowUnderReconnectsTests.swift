@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 26: the pairing window falls to reconnecting strangers no more. While strangers keep
/// connections open to a real `baton pair --accept` and reconnect the moment one is dropped —
/// from the newcomer's own address, or from many others past the window's total cap — a real
/// newcomer (`baton pair HOST:PORT`) reaches its code and pairs.
final class PairingWindowUnderReconnectsTests: ProcessTestCase {
    private var admin: String { config("admin").url.path }

    private func makeGroup() throws {
        for command in [["group", "create", "Ada"], ["device", "add", "A", "--install"]] {
            let result = try runProduct("baton", command + ["--config", admin], timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
    }

    /// Opens the window, starts `count` strangers from `sources` on its port, lets them run
    /// for a second, then has newcomer B pair while they go on; returns how long B took to be
    /// shown its code.
    private func pairUnderAttack(count: Int, from sources: [String]) throws -> Duration {
        try makeGroup()
        let window = try RunningProcess(product: "baton", ["pair", "--accept", "--listen", "127.0.0.1:0", "--config", admin])
        processes.append(window)
        let port = try XCTUnwrap(window.pairingWindowPort(), window.output)
        let newRoot = root.appendingPathComponent("new").path
        return try MainActor.assumeIsolated { () throws -> Duration in
            let strangers = ReconnectingStrangers(count: count, to: port, from: sources)
            defer { strangers.stop() }
            _ = MainLoop.run(until: { false }, timeout: .seconds(1))  // the attack is on
            let started = ContinuousClock.now
            let before = strangers.connections
            let b = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(port)", "--name", "B", "--config", newRoot])
            // Both sides put the code to their person (their typed diagnostics), the strangers
            // going on meanwhile on this loop.
            let shown = runLoop(whileWaiting: {
                b.pairingCode(onWindow: false, timeout: 15) != nil && window.pairingCode(onWindow: true, timeout: 15) != nil
            }, timeout: .seconds(20))
            let took = ContinuousClock.now - started
            defer { b.terminate() }
            XCTAssertTrue(shown && b.isRunning, "no code within 15 s under attack:\n\(b.output)\n\(window.output)")
            XCTAssertGreaterThanOrEqual(strangers.connections, before, "the strangers were still there")
            window.send("y")
            b.send("y")
            _ = runLoop(whileWaiting: { b.waitForExit(timeout: 15) == 0 && window.waitForExit(timeout: 15) == 0 }, timeout: .seconds(40))
            XCTAssertEqual(b.waitForExit(), 0, b.output)
            XCTAssertEqual(window.waitForExit(), 0, window.output)
            return took
        }
    }

    /// 8 strangers from the newcomer's own address (the attack: 3 of 3 newcomers failed).
    func testStrangersFromTheNewcomersAddressCannotKeepItOut() throws {
        let took = try pairUnderAttack(count: 8, from: ["127.0.0.1"])
        print("8 strangers from the newcomer's address: the newcomer saw its code after \(took)")
    }

    /// 200 strangers from the newcomer's own address, more than the window's places and its
    /// places on probation, reconnecting as fast as the window closes them: the newcomer's
    /// ClientHello, sent as it connects, proves it, and a connection whose ClientHello has come
    /// is never closed to make room, so it reaches its code (on its first attempt or, should
    /// one fail, on a retry: `baton pair` tries again).
    func testTwoHundredStrangersFromTheNewcomersAddressCannotKeepItOut() throws {
        let took = try pairUnderAttack(count: 200, from: ["127.0.0.1"])
        print("200 strangers from the newcomer's address: the newcomer saw its code after \(took)")
    }

    /// 72 strangers from 9 other addresses (8 each, the cap per address; more than the
    /// window's total cap of waiting connections).
    func testStrangersFromManyAddressesPastTheTotalCapCannotKeepANewcomerOut() throws {
        let took = try pairUnderAttack(count: 72, from: (2...10).map { "127.0.0.\($0)" })
        print("72 strangers from 9 addresses: the newcomer saw its code after \(took)")
    }
}
