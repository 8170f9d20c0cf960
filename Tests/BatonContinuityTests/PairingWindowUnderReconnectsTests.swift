@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
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
        let line = try XCTUnwrap(window.waitForLine(containing: "pairing window open on"), window.output)
        let address = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }, line)
        let port = try XCTUnwrap(UInt16(address.split(separator: ":")[1].prefix { $0.isNumber }))
        let newRoot = root.appendingPathComponent("new").path
        return try MainActor.assumeIsolated { () throws -> Duration in
            let strangers = ReconnectingStrangers(count: count, to: port, from: sources)
            defer { strangers.stop() }
            // The processes' output wakes no loop: look at it ten times a second.
            let tick = MainLoop.every(.milliseconds(100)) { .again }
            defer { tick.cancel() }
            _ = MainLoop.run(until: { false }, timeout: .seconds(1))  // the attack is on
            let started = ContinuousClock.now
            let before = strangers.connections
            let b = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(port)", "--name", "B", "--config", newRoot])
            let shown = MainLoop.run(until: { b.output.contains("code ") && window.output.contains("wants to join") || !b.isRunning },
                                     timeout: .seconds(15))
            let took = ContinuousClock.now - started
            defer { b.terminate() }
            XCTAssertTrue(shown && b.isRunning, "no code within 15 s under attack:\n\(b.output)\n\(window.output)")
            XCTAssertGreaterThanOrEqual(strangers.connections, before, "the strangers were still there")
            window.send("y")
            b.send("y")
            _ = MainLoop.run(until: { !b.isRunning && !window.isRunning }, timeout: .seconds(15))
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
