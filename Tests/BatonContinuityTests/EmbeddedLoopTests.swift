@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Baton hosted in a program's own GLib loop (`MainLoop.embed(in:)`): two devices, each a
/// `DeviceProbe --embed` that makes a `GMainContext` of its own, embeds Baton in it and runs it
/// with its own `g_main_loop`; it never runs GLib's global default context, and never makes
/// its own the thread's default itself. Every GLib and GIO operation of the continuity layer —
/// dialing, the TLS handshake and its certificate check, accepting, D-Bus set-up, calls,
/// signals, exported objects, stream connections — must start on and call back through that
/// context, or nothing links.
final class EmbeddedLoopTests: TestHostTestCase {
    func testTwoHostedDevicesLinkContinueAndStream() throws {
        let folders = try devices("A", "B")
        let a = try RunningProcess(product: "DeviceProbe", [folders[0], "--ok", "--streams", "--embed"])
        defer { a.terminate() }
        let line = try expect(a, "listening on")
        let address = String(line.split(separator: " ").last!)
        let b = try RunningProcess(product: "DeviceProbe", [folders[1], "--ok", "--embed", "--peer", address])
        defer { b.terminate() }

        // The link, both ways: each sees the other's activity.
        try expect(b, "nearby A", or: "B never linked with A")
        try expect(a, "nearby B", or: "A never saw B's activity")

        // A whole continuation: the payload fetched from A, continued on B, A told.
        b.send("continue 20")
        try expect(b, "continued Probe")
        try expect(a, "saving for a fetch")
        try expect(a, "was continued")

        // Continuation streams: a second connection, request and response.
        let size = 300_000
        b.send("streams \(size)")
        try expect(b, "stream received \(size)")
        try expect(a, "streamed \(size)")

        // Still answering: neither side is stuck.
        for probe in [a, b] {
            probe.send("ping")
            try expect(probe, "pong")
        }
    }

    /// Discovery hosted the same way, between two test hosts (each its own network, system
    /// D-Bus and avahi-daemon; needs root): Avahi's GLib poll runs on the host's context, so the
    /// devices find each other with no static peers, and one continues the other's activity.
    func testTwoHostedDevicesFindEachOtherThroughAvahi() throws {
        try skipUnlessTestHostsAvailable()
        let folders = try devices("A", "B")
        let probe = productURL("DeviceProbe").path
        let (a, b) = try TestHost.pair([probe, folders[0], "--ok", "--listen", "0.0.0.0", "--embed"],
                                       [probe, folders[1], "--ok", "--listen", "0.0.0.0", "--embed"])
        hosts = [a, b]
        XCTAssertTrue(a.process.waitForDiscovery("running"), a.process.output)
        try expect(b.process, "nearby A", or: "B never found A")
        XCTAssertTrue((a.process.diagnosticEvents + b.process.diagnosticEvents).contains {
            if case .deviceFound(let address) = $0 { address.hasPrefix("10.77.0.") } else { false }
        }, a.process.output + b.process.output)
        b.process.send("continue 20")
        try expect(b.process, "continued Probe")
        try expect(a.process, "was continued")
    }

    /// A link made and closed in this process while a host runs its own context: the link
    /// works, both sides hear `closed`, and once dropped everything is freed — GDBus finishes
    /// the close from a source on the thread-default context it was started on, which must be
    /// the host's, and the connection holds its callbacks until then.
    func testALinkClosedUnderAHostsContextIsFreed() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        try MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            let canary = DefaultContextCanary()
            defer { canary.remove() }
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            defer { listener.close() }
            let phoneCredential = try TLSCredential(identity: phone)
            var closed = 0
            var failure: Error?
            Task { @MainActor in
                defer { host.quit() }
                do {
                    async let accepted = listener.accept()
                    let dialed = try await SecureChannel.connect(host: "127.0.0.1", port: listener.port, identity: phone,
                                                                 credential: phoneCredential)
                    let served = try await accepted
                    async let serverBus = PeerBus.open(over: served)
                    let clientBus = try await PeerBus.open(over: dialed)
                    for bus in [try await serverBus, clientBus] {
                        bus.onClosed { closed += 1 }
                        bus.startMessageProcessing()
                    }
                    try await clientBus.ping()
                    try await serverBus.ping()
                    listener.close()  // its watch on the listening socket is a callback box too
                    clientBus.close()
                    try await serverBus.close()
                } catch {
                    failure = error
                }
            }
            XCTAssertTrue(host.run(limit: .seconds(20)), "the link never came up")
            XCTAssertNil(failure)
            XCTAssertTrue(host.iterate(until: { closed == 2 }, limit: .seconds(20)), "closed heard \(closed) times")
            XCTAssertTrue(host.iterate(until: { LoopDiagnostics.liveCallbackBoxes <= boxesBefore }, limit: .seconds(20)),
                          "\(LoopDiagnostics.liveCallbackBoxes - boxesBefore) callback boxes still held: the links were not freed")
            XCTAssertFalse(canary.iterated, "GLib's global default context was iterated")
        }
    }

    /// The line of `probe`'s output containing `text`; fails the test, showing the output, if
    /// none comes (so a hosting that never runs ends the test at its first step).
    @discardableResult
    private func expect(_ probe: RunningProcess, _ text: String, or message: String? = nil,
                        file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try XCTUnwrap(probe.waitForLine(containing: text),
                      "\(message ?? "no '\(text)'"):\n\(probe.output)", file: file, line: line)
    }
}
