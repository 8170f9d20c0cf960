@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// The peak resident memory (VmHWM) of process `pid`, in bytes.
func peakResidentBytes(of pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return nil }
    return kilobytes * 1024
}

/// Issue 9, "Resources a peer can consume" and "Closing a link": what a device of the group
/// (or one that stopped) can make another device hold is bounded — continuation streams, the size of
/// a D-Bus message, the time a stream may stall — and closing a link never waits on the peer.
/// Each test runs real device processes (`DeviceProbe`).
final class PeerResourceTests: TrustTestCase {
    nonisolated(unsafe) private var probes: [RunningProcess] = []

    override func tearDownWithError() throws {
        for probe in probes {
            kill(probe.processIdentifier, SIGCONT)  // a stopped process cannot act on SIGTERM
            probe.terminate()
        }
        probes = []
        try super.tearDownWithError()
    }

    /// Starts a DeviceProbe for device `name` of `authority` with `flags`; returns it and its address.
    private func startProbe(_ authority: GroupAuthority, _ name: String, _ flags: [String]) throws -> (RunningProcess, PeerAddress) {
        let folder = root.appendingPathComponent(name)
        try authority.issueDevice(named: name).write(to: folder)
        let probe = try RunningProcess(product: "DeviceProbe", [folder.path] + flags)
        probes.append(probe)
        return (probe, try XCTUnwrap(probe.listeningAddress(), probe.output))
    }

    /// A linked device that opens more continuation streams on its link than the cap
    /// (`LinkStreams.maximumStreams`, 8) without closing any breaks the protocol: the device
    /// closes the link, published as a refusal, instead of holding more.
    func testOpeningPastTheStreamCapClosesTheLink() throws {
        let opened = try openStreams(ids: (0...LinkStreams.maximumStreams).map { UInt32(2 * $0 + 1) })
        XCTAssertEqual(opened, LinkStreams.maximumStreams)
    }

    /// A stream id used twice on a link (ids only grow) breaks the protocol too.
    func testReusingAStreamIdClosesTheLink() throws {
        XCTAssertEqual(try openStreams(ids: [1, 1]), 1)
    }

    /// Links to a probe that offers streams from a device of the group, calls `OpenStreams`
    /// with `ids` one after the other; returns how many were answered before the link closed,
    /// once the probe has published its refusal.
    private func openStreams(ids: [UInt32]) throws -> Int {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (probe, address) = try startProbe(authority, "A", ["--ok", "--streams"])
        let c = try authority.issueDevice(named: "C")
        let opened = try MainActor.assumeIsolated { () throws -> Int in
            let credential = try TLSCredential(identity: c)
            let device = InProcessDevice(identity: c, title: "C")  // answers the probe's own calls
            let attack = Outcome { () async throws -> Int in
                let channel = try await SecureChannel.connect(host: address.host, port: address.port, identity: c, credential: credential)
                let bus = try await PeerBus.open(over: channel)
                defer { bus.close() }
                let service = DeviceService(handler: device, peer: DevicePeer(id: channel.peerIdentifier, serial: channel.peerSerial))
                try service.register(on: bus)
                bus.startMessageProcessing()
                guard case .dictionary(let entries) = try await bus.call(.getCurrent), case .uint64(let sequence)? = entries["sequence"] else {
                    throw PeerProtocolError.malformed("no activity")
                }
                var opened = 0
                for id in ids {
                    do { try await bus.call(.openStreams(sequence: sequence, stream: id)) } catch { break }
                    opened += 1
                }
                return opened
            }
            XCTAssertTrue(MainLoop.run(until: { attack.done }, timeout: .seconds(60)))
            return try attack.get()
        }
        XCTAssertTrue(probe.waitForRefusal(.malformedMessage), probe.output)
        return opened
    }

    /// A device of the group that, once its link is up, sends a D-Bus message header announcing
    /// a 100 MB body and then streams the bytes: the receiving device refuses it from the
    /// header, closes the link, never holds the body (its peak memory stays far below 100 MB),
    /// and goes on serving.
    func testAMessageAnnouncingAHugeBodyIsRefusedFromItsHeader() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (probe, address) = try startProbe(authority, "A", ["--ok"])
        let c = try authority.issueDevice(named: "C")
        let announced = 100_000_000
        let (sent, closed) = try MainActor.assumeIsolated { () throws -> (Int, Bool) in
            let credential = try TLSCredential(identity: c)
            let attack = Outcome { () async throws -> (Int, Bool) in
                let channel = try await SecureChannel.connect(host: address.host, port: address.port, identity: c, credential: credential)
                try await channel.authenticateAnonymouslyByHand()
                // A method call header: little-endian, type 1, flags 0, version 1, body length,
                // serial 1, no header fields.
                var header = Data([UInt8(ascii: "l"), 1, 0, 1])
                for value in [UInt32(announced), 1, 0] { withUnsafeBytes(of: value.littleEndian) { header.append(contentsOf: $0) } }
                try await channel.send(Data("BEGIN\r\n".utf8) + header)
                let megabyte = Data(repeating: 0x61, count: 1 << 20)
                var sent = 0
                do {
                    while sent < announced {
                        try await channel.send(megabyte)
                        sent += megabyte.count
                    }
                } catch {}
                // What the device had sent before it closed (its own calls to this new link) is
                // read first; then the link must end.
                var ended = false, drained = 0
                while !ended, drained < 1 << 20 {
                    do {
                        let chunk = try await channel.receive(maxLength: 64 * 1024)
                        if chunk.isEmpty { ended = true } else { drained += chunk.count }
                    } catch {
                        ended = true
                    }
                }
                return (sent, ended)
            }
            XCTAssertTrue(MainLoop.run(until: { attack.done }, timeout: .seconds(60)))
            return try attack.get()
        }
        XCTAssertTrue(closed, "the receiving device closed the link")
        XCTAssertLessThan(sent, announced, "the body was never taken whole")
        XCTAssertTrue(probe.waitForRefusal(.oversizedMessage), probe.output)
        let peak = try XCTUnwrap(peakResidentBytes(of: probe.processIdentifier))
        XCTAssertLessThan(peak, 80_000_000, "peak resident memory \(peak) bytes")
        probe.send("ping")
        XCTAssertNotNil(probe.waitForLine(containing: "pong"), probe.output)
    }

    /// A linked device stops (SIGSTOP) with messages still queued for it; the other closes its
    /// links. Closing never waits on the stopped peer: the app answers at once.
    func testClosingALinkToAStoppedPeerDoesNotFreezeTheApp() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (stopped, stoppedAddress) = try startProbe(authority, "B", ["--ok"])
        let (closing, _) = try startProbe(authority, "A", ["--ok", "--peer", stoppedAddress.description])
        XCTAssertTrue(closing.waitForNearby(from: "B"), closing.output)
        XCTAssertTrue(stopped.waitForNearby(from: "A"), stopped.output)
        kill(stopped.processIdentifier, SIGSTOP)
        // More than the socket buffers hold: the rest waits in GDBus's queue.
        closing.send("flood 20000")
        XCTAssertNotNil(closing.waitForLine(containing: "flooded", timeout: 60), closing.output)
        let started = ContinuousClock.now
        closing.send("stop")
        closing.send("ping")
        XCTAssertNotNil(closing.waitForLine(containing: "pong", timeout: 30), closing.output)
        let answered = ContinuousClock.now - started
        XCTAssertLessThan(answered, .seconds(5), "the app answered \(answered) after closing its links")
        XCTAssertNotNil(closing.waitForLine(containing: "stopped"), closing.output)
    }

    /// The originating device stops (SIGSTOP) in the middle of a long response: the continuing
    /// side's stream fails after the idle bound instead of waiting forever, and the stopped
    /// side's own stream fails once it runs again.
    func testAStreamWhosePeerStopsFailsAfterTheIdleBound() throws {
        let (origin, continuing) = try streamingPair()
        kill(origin.processIdentifier, SIGSTOP)
        let stopped = ContinuousClock.now
        XCTAssertNotNil(continuing.waitForLine(containing: "stream failed", timeout: 30), continuing.output)
        XCTAssertLessThan(ContinuousClock.now - stopped, .seconds(25), "failed after the idle bound (2 s), not a TCP timeout")
        kill(origin.processIdentifier, SIGCONT)
        XCTAssertNotNil(origin.waitForLine(containing: "stream failed", timeout: 30), origin.output)
    }

    /// The continuing device stops reading (SIGSTOP) while the originating one writes: the
    /// writer's stream fails after the idle bound.
    func testAStreamWhoseReaderStopsFailsTheWriterAfterTheIdleBound() throws {
        let (origin, continuing) = try streamingPair()
        kill(continuing.processIdentifier, SIGSTOP)
        let stopped = ContinuousClock.now
        XCTAssertNotNil(origin.waitForLine(containing: "stream failed", timeout: 30), origin.output)
        XCTAssertLessThan(ContinuousClock.now - stopped, .seconds(25), "failed after the idle bound (2 s), not a TCP timeout")
        kill(continuing.processIdentifier, SIGCONT)
        XCTAssertNotNil(continuing.waitForLine(containing: "stream failed", timeout: 30), continuing.output)
    }

    /// Two probes with a 2 s stream idle bound: B continues A's activity and is in the middle
    /// of receiving an endless response.
    private func streamingPair() throws -> (origin: RunningProcess, continuing: RunningProcess) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let (origin, address) = try startProbe(authority, "A", ["--ok", "--streams", "--stream-idle", "2"])
        let (continuing, _) = try startProbe(authority, "B", ["--ok", "--stream-idle", "2", "--peer", address.description])
        XCTAssertTrue(continuing.waitForNearby(from: "A"), continuing.output)
        continuing.send("continue 10")
        XCTAssertTrue(continuing.waitForContinued(from: "A"), continuing.output)
        continuing.send("streams 100000000000")
        XCTAssertNotNil(continuing.waitForLine(containing: "stream receiving"), continuing.output)
        return (origin, continuing)
    }
}
