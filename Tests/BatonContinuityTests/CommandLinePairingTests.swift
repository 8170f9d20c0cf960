@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// `baton pair` between real processes, answered on standard input: a pairing that works and
/// is followed by a handoff, a relay in the middle, and each way a pairing ends without one —
/// each with a message, and nothing written on either side.
final class CommandLinePairingTests: ProcessTestCase {
    private var admin: String { config("admin").url.path }

    /// The group Ada administered in `admin`, with this machine's own device A.
    private func makeGroup() throws {
        for command in [["group", "create", "Ada"], ["device", "add", "A", "--install"]] {
            let result = try runProduct("baton", command + ["--config", admin], timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
    }

    /// The new device's configuration folder `name`.
    private func newRoot(_ name: String = "new") -> String { root.appendingPathComponent(name).path }

    /// Everything on disk of both sides.
    private func snapshot() throws -> FolderSnapshot { try FolderSnapshot(config("admin").url, root.appendingPathComponent("new")) }

    /// `baton pair --accept` on loopback; returns it and its port.
    private func openWindow(_ extra: [String] = []) throws -> (RunningProcess, UInt16) {
        let window = try RunningProcess(product: "baton", ["pair", "--accept", "--listen", "127.0.0.1:0", "--config", admin] + extra)
        processes.append(window)
        return (window, try XCTUnwrap(window.pairingWindowPort(), window.output))
    }

    /// `baton pair 127.0.0.1:PORT --name NAME`.
    private func newcomer(port: UInt16, name: String = "B", root folder: String? = nil, _ extra: [String] = []) throws -> RunningProcess {
        let process = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(port)", "--name", name, "--config", folder ?? newRoot()] + extra)
        processes.append(process)
        return process
    }

    func testTwoDevicesPairWithAnswersOnStandardInputThenLinkAndHandOff() throws {
        try makeGroup()
        let (window, port) = try openWindow()
        let b = try newcomer(port: port)
        let windowCode = try XCTUnwrap(window.pairingCode(onWindow: true), window.output)
        let newcomerCode = b.pairingCode(onWindow: false)
        XCTAssertEqual(windowCode, newcomerCode, "\(window.output)\n\(b.output)")
        // The question the person at the window must see: who asks, for which group, with the code.
        XCTAssertNotNil(window.waitForLine(containing: "wants to join group 'Ada': code \(windowCode)"), window.output)
        window.send("y")
        b.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
        XCTAssertTrue(window.waitFor(.paired(device: "B")), window.output)
        XCTAssertTrue(b.waitFor(.joinedGroup(group: "Ada", device: "B")), b.output)
        let identity = try runProduct("baton", ["identity", "--config", newRoot()])
        XCTAssertNotNil(identity.stdout.range(of: "device 'B'"), identity.stdout + identity.stderr)

        // A and B link and hand off an activity (the Shapes example, as between provisioned devices).
        let a = try RunningProcess(product: "baton-shapes", ["--device", config("admin").deviceDirectory.path, "--listen", "127.0.0.1:0", "--create", "triangle"])
        processes.append(a)
        let listening = try XCTUnwrap(a.listeningAddress(), a.output)
        let continued = try RunningProcess(product: "baton-shapes", ["--device", newRoot() + "/device", "--listen", "127.0.0.1:0", "--peer",
                                                                    listening.description, "--continue-nearby"])
        processes.append(continued)
        XCTAssertEqual(continued.waitForExit(), 0, continued.output)
        XCTAssertNotNil(continued.output.range(of: "restoreUserActivityState: created a triangle"), continued.output)
        XCTAssertNotNil(continued.output.range(of: "on A"), continued.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
    }

    func testTheWindowMayTypeTheNewcomersCodeInstead() throws {
        try makeGroup()
        let (window, port) = try openWindow(["--code"])
        let b = try newcomer(port: port)
        let shown = try XCTUnwrap(b.pairingCode(onWindow: false), b.output)
        // The words each person must see: the code to type there, and the prompt to type it here.
        XCTAssertNotNil(b.waitForLine(containing: "code \(shown) (type it on the other device)"), b.output)
        XCTAssertNotNil(window.waitForLine(containing: "Type the code the other device shows"), window.output)
        XCTAssertNil(window.output.range(of: shown), "the typing side does not show its code")
        XCTAssertNil(window.pairingCode(onWindow: true, timeout: 0), "the typing side publishes no code either")
        window.send(shown)
        // The showing side still asks its person about its own code, which the typing side now says matched.
        // The dialog's words: the typing side says the code matched, the other asks about that very code.
        XCTAssertNotNil(window.waitForLine(containing: "code \(shown) matches"), window.output)
        XCTAssertNotNil(b.waitForLine(containing: "Does the other device say 'code \(shown) matches'? [y/N]"), b.output)
        b.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
        XCTAssertTrue(b.waitFor(.joinedGroup(group: "Ada", device: "B")), b.output)
    }

    /// With the user's own configuration (no `--config`), the new device starts its agent once
    /// it has joined, and the agent links with the group at once.
    func testTheNewDeviceStartsItsAgentWhichLinksAtOnce() throws {
        try makeGroup()
        let home = root.appendingPathComponent("home"), run = root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: run, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let lock = run.appendingPathComponent("baton/agent.socket.lock")
        addTeardownBlock {
            // The agent runs in a session of its own: ended here, whatever happened.
            if let text = try? String(contentsOf: lock, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) {
                kill(pid, SIGKILL)
            }
        }
        let agentA = try RunningProcess(product: "batond", ["--device", config("admin").deviceDirectory.path, "--socket",
                                                            root.appendingPathComponent("a.sock").path, "--listen", "127.0.0.1:0",
                                                            "--no-notifications"])
        processes.append(agentA)
        let addressA = try XCTUnwrap(agentA.listeningAddress(), agentA.output).description
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_AGENT_SOCKET"] = nil
        // The agent pairing starts: the one just built (not one installed on PATH), on loopback.
        let settings = home.appendingPathComponent(".config/baton/agent.conf")
        try FileManager.default.createDirectory(at: settings.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "[Agent]\nListen=127.0.0.1:0\nNotifications=false\n".write(to: settings, atomically: true, encoding: .utf8)
        environment.merge(["HOME": home.path, "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
                           "XDG_RUNTIME_DIR": run.path, "BATON_PEERS": addressA, "BATOND": productURL("batond").path]) { $1 }
        let (window, port) = try openWindow()
        let b = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(port)", "--name", "B"], environment: environment)
        processes.append(b)
        XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
        window.send("y")
        b.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertNotNil(b.output.range(of: "started the agent (batond)"), b.output)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent(".config/baton/device/key.pem").path))
        XCTAssertTrue(agentA.waitForLink(with: "B"), agentA.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
    }

    func testTheNewcomerMayTypeTheWindowsCodeInstead() throws {
        try makeGroup()
        let (window, port) = try openWindow()
        let b = try newcomer(port: port, ["--code"])
        let shown = try XCTUnwrap(window.pairingCode(onWindow: true), window.output)
        // The words each person must see: the code to type there, and the prompt to type it here.
        XCTAssertNotNil(window.waitForLine(containing: "code \(shown) (type it on the new device)"), window.output)
        XCTAssertNotNil(b.waitForLine(containing: "Type the code the other device shows"), b.output)
        XCTAssertNil(b.output.range(of: shown), "the typing side does not show its code")
        XCTAssertNil(b.pairingCode(onWindow: false, timeout: 0), "the typing side publishes no code either")
        b.send(shown)
        // The dialog's words: the typing side says the code matched, the other asks about that very code.
        XCTAssertNotNil(b.waitForLine(containing: "code \(shown) matches"), b.output)
        XCTAssertNotNil(window.waitForLine(containing: "Does the new device say 'code \(shown) matches'? [y/N]"), window.output)
        window.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
        XCTAssertTrue(b.waitFor(.joinedGroup(group: "Ada", device: "B")), b.output)
    }

    func testARelayInTheMiddleGetsTwoDifferentCodesAndANoOrAMistypedCodeWritesNothing() throws {
        try makeGroup()
        let before = try snapshot()
        let (window, port) = try openWindow()
        let arguments = ["--name", "B", "--config", newRoot()]
        var started: [RunningProcess] = []
        defer { processes += started }
        try MainActor.assumeIsolated {
            let relay = try PairingRelay(to: port)
            defer { relay.close() }
            // The person at the window says no on seeing codes that differ.
            var b = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(relay.port)"] + arguments)
            started.append(b)
            spin(until: { window.pairingCode(onWindow: true, timeout: 0) != nil && b.pairingCode(onWindow: false, timeout: 0) != nil })
            let windowCode = window.pairingCode(onWindow: true)
            let newcomerCode = b.pairingCode(onWindow: false)
            XCTAssertNotNil(windowCode)
            XCTAssertNotEqual(windowCode, newcomerCode, "two TLS sessions, two codes (a false alarm has odds 10⁻⁶)")
            window.send("n")
            spin(until: { b.pairingFailure(timeout: 0) != nil })
            XCTAssertEqual(b.pairingFailure()?.reason, .declinedThere, b.output)

            // The newcomer types the window's code: it is not its own, so it says no.
            b = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(relay.port)", "--code"] + arguments)
            started.append(b)
            // The typing newcomer shows no code: that it asks is seen in its prompt, the words its person reads.
            spin(until: { window.pairingCode(onWindow: true, occurrence: 2, timeout: 0) != nil && b.output.contains("Type the code") })
            let second = try XCTUnwrap(window.pairingCode(onWindow: true, occurrence: 2))
            b.send(second)
            spin(until: { b.pairingFailure(timeout: 0) != nil && window.pairingFailure(occurrence: 2, timeout: 0) != nil })
            XCTAssertEqual(b.pairingFailure()?.reason, .declinedHere, b.output)
            let windowSaw = window.pairingFailure(occurrence: 2)
            XCTAssertEqual(windowSaw?.reason, .declinedThere, window.output)
            XCTAssertEqual(windowSaw?.attemptsLeft, 1, window.output)
        }
        window.terminate()
        window.waitForExit()
        XCTAssertEqual(before, try snapshot())
    }

    func testDeclinedOnEitherSideThenTooManyAttemptsCloseTheWindowAndNothingIsWritten() throws {
        try makeGroup()
        let before = try snapshot()
        let (window, port) = try openWindow()
        for (attempt, windowSays, newcomerSays) in [(1, "n", nil), (2, nil, "n"), (3, "n", "n")] as [(Int, String?, String?)] {
            let b = try newcomer(port: port)
            XCTAssertNotNil(window.pairingCode(onWindow: true, occurrence: attempt), window.output)
            XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
            if let windowSays { window.send(windowSays) }
            if let newcomerSays { b.send(newcomerSays) }
            XCTAssertEqual(b.waitForExit(), 1, b.output)
            // When both say no, the newcomer reports whichever no it learns first: its own
            // person's on standard input, or the window's over the network.
            let reasons: [DiagnosticEvent.PairingFailure] = switch (windowSays, newcomerSays) {
            case (.some, nil): [.declinedThere]
            case (nil, .some): [.declinedHere]
            default: [.declinedHere, .declinedThere]
            }
            let failure = b.pairingFailure()
            XCTAssertTrue(failure.map { reasons.contains($0.reason) } ?? false, b.output)
            XCTAssertEqual(window.pairingFailure(occurrence: attempt)?.attemptsLeft, 3 - attempt, window.output)
        }
        XCTAssertEqual(window.waitForExit(), 1, window.output)
        // What the person at the window reads when it closes.
        XCTAssertNotNil(window.output.range(of: "the pairing window closed: its attempts are used"), window.output)
        let late = try newcomer(port: port)
        XCTAssertEqual(late.waitForExit(), 1, late.output)
        XCTAssertNotNil(late.output.range(of: "connection failed"), late.output)
        XCTAssertEqual(before, try snapshot())
    }

    func testAWindowWhoseTimeIsUpEndsThePairingOnBothSides() throws {
        try makeGroup()
        let before = try snapshot()
        let (window, port) = try openWindow(["--timeout", "3"])
        let b = try newcomer(port: port)
        XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
        // Nobody answers.
        XCTAssertEqual(window.waitForExit(timeout: 30), 1, window.output)
        XCTAssertNotNil(window.output.range(of: "its time (3.0 seconds) is up"), window.output)
        XCTAssertEqual(b.waitForExit(timeout: 30), 1, b.output)
        XCTAssertNotNil(b.output.range(of: "baton pair: "), b.output)
        XCTAssertEqual(before, try snapshot())
    }

    func testASecondNewcomerWhileTheWindowIsInUseIsToldSoAndTheFirstStillPairs() throws {
        try makeGroup()
        let (window, port) = try openWindow()
        let b = try newcomer(port: port)
        XCTAssertNotNil(window.pairingCode(onWindow: true), window.output)
        let c = try newcomer(port: port, name: "C", root: newRoot("other"))
        XCTAssertEqual(c.waitForExit(), 1, c.output)
        XCTAssertTrue(window.waitFor(.pairingRefused(reason: .busy)), window.output)
        XCTAssertEqual(c.pairingFailure()?.reason, .refused, c.output)
        // What the second newcomer's person reads: why, and what to do.
        XCTAssertNotNil(c.output.range(of: "it is pairing another device now"), c.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: newRoot("other") + "/device"))
        XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
        window.send("y")
        b.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
    }

    /// Whether a name is taken is told only after both yeses (no oracle of the group's names for
    /// whoever connects), with a fixed reason; the detail stays on the window's side.
    func testANameTakenIsRefusedAfterBothYesesAndNothingIsWritten() throws {
        try makeGroup()
        let before = try snapshot()
        let (window, port) = try openWindow()
        let b = try newcomer(port: port, name: "A")
        XCTAssertNotNil(window.pairingCode(onWindow: true), window.output)
        XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
        window.send("y")
        b.send("y")
        XCTAssertEqual(b.waitForExit(), 1, b.output)
        XCTAssertEqual(b.pairingFailure()?.reason, .declinedThere, b.output)
        // The fixed words the newcomer's person reads (no path of the window's side in them).
        XCTAssertNotNil(b.output.range(of: "the name is taken in the group: pair again with another --name"), b.output)
        XCTAssertNil(b.output.range(of: admin), b.output)
        let failure = window.pairingFailure()
        XCTAssertEqual(failure?.reason, .cannotIssue, window.output)
        XCTAssertEqual(failure?.attemptsLeft, 2, window.output)
        // The detail stays on the window's side, for its person.
        XCTAssertNotNil(window.waitForLine(containing: "a device named 'A' is already in the group"), window.output)
        window.terminate()
        window.waitForExit()
        XCTAssertEqual(before, try snapshot())
    }

    func testANewcomerThatAlreadyHasAnIdentityIsRefusedUnlessForced() throws {
        try makeGroup()
        let (_, port) = try openWindow()
        let b = try newcomer(port: port, root: admin)
        XCTAssertEqual(b.waitForExit(), 1, b.output)
        XCTAssertNotNil(b.output.range(of: "already holds a device identity"), b.output)
    }

    /// Connects to `port` on loopback, writes `bytes`, and closes (or, with `hold`, leaves the
    /// connection open; it is returned to close later).
    private func rawConnection(port: UInt16, sending bytes: [UInt8], hold: Bool = false) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        if !hold { close(fd) }
        return fd
    }

    func testGarbageOnThePairingPortUsesNoAttemptAndARealNewcomerStillPairs() throws {
        try makeGroup()
        let (window, port) = try openWindow()
        var held: [Int32] = []
        for _ in 0..<4 {
            _ = try rawConnection(port: port, sending: (0..<512).map { _ in UInt8.random(in: 0...255) })
            _ = try rawConnection(port: port, sending: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            // A TLS record header announcing a ClientHello that never comes.
            held.append(try rawConnection(port: port, sending: [0x16, 0x03, 0x01, 0x02, 0x00], hold: true))
        }
        defer { for fd in held { close(fd) } }
        let b = try newcomer(port: port)
        XCTAssertNotNil(window.pairingCode(onWindow: true), window.output)
        XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
        window.send("y")
        b.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
        XCTAssertTrue(window.waitFor(.paired(device: "B")), window.output)
        XCTAssertNil(window.pairingFailure(timeout: 0), "garbage used no attempt: \(window.output)")
    }
}

extension CommandLinePairingTests {
    /// How a careful person answers the last question on `screen`: yes only if the code it
    /// asks about is the one `otherScreen` shows (a question naming no code gets the yes it
    /// asks for: the person trusts the words on the screen).
    private static func carefulAnswer(_ screen: String, otherScreen: String) -> String {
        let question = screen.components(separatedBy: "\n").last { $0.contains("[y/N]") } ?? ""
        guard let asked = question.range(of: #"\d{3} \d{3}"#, options: .regularExpression).map({ String(question[$0]) }) else { return "y" }
        return otherScreen.range(of: "code \(asked)") != nil ? "y" : "n"
    }

    func testARelayThatLiesAboutWhoTypesCannotTurnOffEitherSidesComparisonAndNothingIsGrantedOrWritten() throws {
        try makeGroup()
        let before = try snapshot()
        let (window, port) = try openWindow()
        let attacker = try GroupAuthority.create(name: "Mallory", in: config("mallory"))
        let arguments = ["--name", "B", "--config", newRoot()]
        var started: [RunningProcess] = []
        defer { processes += started }
        try MainActor.assumeIsolated {
            let relay = try TypingFlagRelay(to: port, attacker: attacker)
            defer { relay.close() }
            let b = try RunningProcess(product: "baton", ["pair", "127.0.0.1:\(relay.port)"] + arguments)
            started.append(b)
            spin(until: { window.output.contains("[y/N]") && b.output.contains("[y/N]") })
            window.send(Self.carefulAnswer(window.output, otherScreen: b.output))
            b.send(Self.carefulAnswer(b.output, otherScreen: window.output))
            spin(until: { relay.done && (b.output.contains("baton pair:") || b.output.contains("joined group")) })
            XCTAssertFalse(relay.granted, "the window granted the relay's key: \(window.output)")
            XCTAssertFalse(relay.newcomerConfirmed, "the newcomer confirmed a code its person never compared: \(b.output)")
            XCTAssertNil(b.output.range(of: "joined group"), b.output)
            XCTAssertNotNil(b.output.range(of: "not confirmed here"), b.output)
        }
        window.terminate()
        window.waitForExit()
        XCTAssertEqual(before, try snapshot())
    }
}

extension CommandLinePairingTests {
    /// On a terminal, a "y" typed before the code was shown does not answer the question
    /// about it: only an answer typed after the question counts.
    func testAnAnswerTypedAheadOnATerminalDoesNotAnswerTheCodeQuestion() throws {
        try makeGroup()
        let before = try snapshot()
        let window = try RunningProcess(product: "baton", ["pair", "--accept", "--listen", "127.0.0.1:0", "--config", admin], terminal: true)
        processes.append(window)
        let port = try XCTUnwrap(window.pairingWindowPort(), window.output)
        window.send("y")  // typed ahead, before any code
        let b = try newcomer(port: port)
        // The answer must come after the question is on the terminal: its words are what is waited for.
        XCTAssertNotNil(window.waitForLine(containing: "Does the new device show"), window.output)
        XCTAssertNotNil(b.pairingCode(onWindow: false), b.output)
        b.send("y")
        window.send("n")  // the person's answer, typed after seeing the code
        XCTAssertEqual(b.waitForExit(), 1, b.output)
        XCTAssertEqual(b.pairingFailure()?.reason, .declinedThere, b.output)
        window.terminate()
        window.waitForExit()
        XCTAssertEqual(before, try snapshot())
    }
}

extension CommandLinePairingTests {
    /// A typed entry that is not six digits is a slip: it is named and asked again, and the
    /// code typed next decides.
    func testATypedEntryThatIsNotSixDigitsIsAskedAgain() throws {
        try makeGroup()
        let (window, port) = try openWindow()
        let b = try newcomer(port: port, ["--code"])
        let shown = try XCTUnwrap(window.pairingCode(onWindow: true), window.output)
        // A terminal dialog: each answer follows the prompt its person reads.
        XCTAssertNotNil(b.waitForLine(containing: "Type the code the other device shows"), b.output)
        b.send("12345")
        XCTAssertNotNil(b.waitForLine(containing: "'12345' is not a six-digit code"), b.output)
        b.send(shown)
        XCTAssertNotNil(b.waitForLine(containing: "code \(shown) matches"), b.output)
        window.send("y")
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)
    }
}

extension CommandLinePairingTests {
    func testAHostNameGivenToListenIsRefusedAsAnArgument() throws {
        try makeGroup()
        let result = try runProduct("baton", ["pair", "--accept", "--listen", "localhost:0", "--config", admin], timeout: 30)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertNotNil(result.stderr.range(of: "--listen needs an IP address to listen on, not 'localhost'"), result.stderr)
    }
}
