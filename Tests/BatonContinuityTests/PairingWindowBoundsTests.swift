@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// The window's bounds against a newcomer that misbehaves: what uses an attempt, what is told
/// to an unauthenticated peer, and a grant issued but not delivered.
final class PairingWindowBoundsTests: TrustTestCase {
    /// A newcomer of the test's own that says hello as `name` and then goes as far as `steps`
    /// (0: hangs up at once; 1: after the commit; 3: after the reveal, with its verdict `yes`),
    /// then hangs up. Returns the commit it got (nil if none).
    @MainActor
    private static func rogue(port: UInt16, name: String, steps: Int, yes: Bool = true) async -> PairingMessage? {
        guard let channel = try? await PairingChannel.connect(host: "127.0.0.1", port: port) else { return nil }
        defer { channel.abort() }
        guard (try? await channel.send(.hello(version: PairingMessage.version, typing: false))) != nil, steps > 0,
              let commit = try? await channel.receive(.commit, within: .seconds(15)) else { return nil }
        guard steps > 1, case .commit(.none, _, _, _) = commit else { return commit }
        guard (try? await channel.send(.nonce(PairingCode.nonce()))) != nil, steps > 2,
              (try? await channel.receive(.reveal, within: .seconds(15))) != nil else { return commit }
        try? await channel.send(.verdict(yes, name: name))
        return commit
    }

    func testHelloesThatHangUpBeforeThePersonIsAskedUseNoAttempt() throws {
        let authority = try pairingGroup()
        let folder = root.appendingPathComponent("new/device")
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            var asked = 0
            let window = PairingWindow(authority: authority, listener: listener, maximumAttempts: 1) { _ in
                asked += 1
                return true
            }
            window.attemptSpacing = .milliseconds(50)
            var windowResult: Result<String, PairingError>?
            Task { @MainActor in windowResult = await window.run() }
            var commits: [PairingMessage?] = []
            // Each session's end, as the window sees it: the next rogue comes only then, or it
            // could be told the window is busy (under load the hang-up can reach the window after
            // the next hello does).
            var sessionsEnded = 0
            window.onEvent = { if case .attemptFailed = $0 { sessionsEnded += 1 } }
            // Hangs up after its hello, then twice after the commit (before its nonce): no code was revealed.
            for (index, steps) in [0, 1, 1].enumerated() {
                Task { @MainActor in commits.append(await Self.rogue(port: listener.port, name: "B", steps: steps)) }
                spin(until: { (commits.count == index + 1 && sessionsEnded == index + 1) || windowResult != nil })
            }
            guard case .commit(.none, _, let reason, _)?? = commits.last else { return XCTFail("\(commits)") }
            XCTAssertEqual(reason, "")
            XCTAssertNil(windowResult, "the window closed, its person never asked: \(String(describing: windowResult))")
            XCTAssertEqual(asked, 0)
            // Its one attempt is still there.
            var newcomerResult: Result<DeviceIdentity, PairingError>?
            try PairingNewcomer(name: "B").startJoining(port: listener.port, folder: folder) { outcome in
                newcomerResult = outcome
                if case .failure = outcome { window.close() }
            }
            spin(until: { windowResult != nil && newcomerResult != nil })
            XCTAssertEqual(try windowResult?.get(), "B")
            XCTAssertEqual(asked, 1)
        }
    }

    func testARosterThatCannotBeReadIsNotDescribedToTheNewcomer() throws {
        let authority = try pairingGroup()
        let roster = config("admin").groupDirectory.appendingPathComponent("roster")
        try Data("not a roster".utf8).write(to: roster)
        let folder = root.appendingPathComponent("new/device"), rootPath = root.path
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            var events: [String] = []
            let window = PairingWindow(authority: authority, listener: listener, maximumAttempts: 1) { _ in true }
            window.onEvent = { events.append("\($0)") }
            var windowResult: Result<String, PairingError>?
            Task { @MainActor in windowResult = await window.run() }
            var newcomerResult: Result<DeviceIdentity, PairingError>?
            try PairingNewcomer(name: "B").startJoining(port: listener.port, folder: folder) { newcomerResult = $0 }
            spin(until: { windowResult != nil && newcomerResult != nil })
            guard case .failure(let error)? = newcomerResult else { return XCTFail("\(String(describing: newcomerResult))") }
            XCTAssertNil("\(error)".range(of: rootPath), "local paths crossed to the newcomer: \(error)")
            XCTAssertNil("\(error)".range(of: "roster"), "\(error)")
            XCTAssertNotNil(events.joined().range(of: "roster"), "the detail is logged here: \(events)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path))
    }

    func testAGrantIssuedButNotDeliveredClosesTheWindowNamingTheDeviceToRevoke() throws {
        let authority = try pairingGroup()
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            let window = PairingWindow(authority: authority, listener: listener, lifetime: .seconds(15)) { _ in true }
            var windowResult: Result<String, PairingError>?
            Task { @MainActor in windowResult = await window.run() }
            // Confirms, then hangs up without taking the grant.
            Task { @MainActor in _ = await Self.rogue(port: listener.port, name: "B", steps: 3) }
            spin(until: { windowResult != nil })
            guard case .failure(let error)? = windowResult else { return XCTFail("\(String(describing: windowResult))") }
            XCTAssertNotNil("\(error)".range(of: "baton device revoke B"), "\(error)")
            XCTAssertNotNil("\(error)".range(of: "'B'"), "\(error)")
        }
        XCTAssertEqual(try authority.loadRoster().devices.map(\.name), ["A", "B"], "issued: in the roster, as the message says")
    }

    func testTheNewcomerSaysNoNameBeforeItsPersonsYes() throws {
        let authority = try pairingGroup()
        let folder = root.appendingPathComponent("new/device")
        let name = "zoe-thinkpad"
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            var askedFor: String?
            let window = PairingWindow(authority: authority, listener: listener, maximumAttempts: 1) { _ in true }
            var windowResult: Result<String, PairingError>?
            Task { @MainActor in windowResult = await window.run() }
            let newcomer = try PairingNewcomer(name: name)
            var sent = Data(), sentBeforeYes: Data?
            newcomer.onSend = { sent.append($0) }
            var newcomerResult: Result<DeviceIdentity, PairingError>?
            newcomer.startJoining(port: listener.port, folder: folder, confirm: { _ in
                sentBeforeYes = sent
                return true
            }) { newcomerResult = $0 }
            spin(until: { windowResult != nil && newcomerResult != nil })
            askedFor = try? windowResult?.get()
            XCTAssertEqual(askedFor, name, "named in the verdict, after the yes")
            let before = try XCTUnwrap(sentBeforeYes)
            XCTAssertFalse(before.isEmpty)
            XCTAssertNil(before.range(of: Data(name.utf8)), "the name crossed before the person's yes")
            XCTAssertNotNil(sent.range(of: Data(name.utf8)))
        }
    }
}
