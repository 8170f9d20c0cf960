@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Crypto
import Foundation
import XCTest

/// The pairing protocol in one process, on the real loop with real TLS: both sides' code, the
/// grant for the newcomer's own key, a relay in the middle, a window that breaks its
/// commitment, garbage on the port, the window's bounds.
final class PairingTests: TrustTestCase {
    /// Where the newcomer writes.
    private var newcomerFolder: URL { root.appendingPathComponent("new/device") }

    /// Runs `window` and a newcomer against `port` with the answers given; returns both outcomes.
    @MainActor
    private static func pair(_ window: PairingWindow, newcomer: PairingNewcomer, port: UInt16, typing: Bool = false, folder: URL,
                      newcomerSays answer: @escaping @MainActor (PairingNewcomer.Prompt) async -> Bool)
        -> (window: Result<String, PairingError>, newcomer: Result<DeviceIdentity, PairingError>) {
        var windowResult: Result<String, PairingError>?
        var newcomerResult: Result<DeviceIdentity, PairingError>?
        Task { @MainActor in windowResult = await window.run() }
        Task { @MainActor in
            do throws(PairingError) {
                newcomerResult = .success(try await newcomer.join(host: "127.0.0.1", port: port, typing: typing, timeout: .seconds(15),
                                                                  confirm: answer) { try $0.write(to: folder) })
            } catch {
                newcomerResult = .failure(error)
                window.close()  // the window would wait for another newcomer
            }
        }
        spin(until: { windowResult != nil && newcomerResult != nil })
        return (windowResult ?? .failure(.windowClosed("test")), newcomerResult ?? .failure(.declinedHere))
    }

    func testBothSidesShowTheSameCodeAndTheNewcomerGetsACertificateForItsOwnKeyWhichNeverLeavesIt() throws {
        let authority = try pairingGroup()
        let folder = newcomerFolder, adminDevice = config("admin").deviceDirectory
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            var codes: [String] = []
            let window = PairingWindow(authority: authority, listener: listener, updating: [adminDevice]) {
                codes.append($0.code.digits)
                return true
            }
            let newcomer = try PairingNewcomer(name: "B")
            var sent = Data()
            newcomer.onSend = { sent.append($0) }
            let (windowResult, newcomerResult) = Self.pair(window, newcomer: newcomer, port: listener.port, folder: folder) {
                codes.append($0.code.digits)
                return true
            }
            XCTAssertEqual(try windowResult.get(), "B")
            let identity = try newcomerResult.get()
            XCTAssertEqual(codes.count, 2)
            XCTAssertEqual(codes.first, codes.last, "both sides derive the same code from one session")
            XCTAssertEqual(codes.first?.count, 6)

            // The identity written is the newcomer's own key with the certificate the group issued for it.
            let saved = try DeviceIdentity.load(from: folder)
            XCTAssertEqual(saved.certificate, identity.certificate)
            XCTAssertEqual(saved.name, "B")
            let key = newcomer.certificate.key
            XCTAssertEqual(try SecureFiles.privateKey(at: folder.appendingPathComponent("key.pem")).rawRepresentation, key.rawRepresentation)
            XCTAssertEqual(try authority.loadRoster().devices.map(\.name), ["A", "B"])
            XCTAssertEqual(try DeviceIdentity.load(from: adminDevice).verifyPeer(saved.certificate), saved.identifier,
                           "A takes B as a device of its group")

            // Everything the newcomer wrote to the connection: none of its key's forms.
            XCTAssertFalse(sent.isEmpty)
            let pemBody = key.pemRepresentation.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            for secret in [key.rawRepresentation, key.derRepresentation, key.x963Representation, Data(pemBody.utf8),
                           Data(key.rawRepresentation.map { String(format: "%02x", $0) }.joined().utf8)] {
                XCTAssertNil(sent.range(of: secret), "a form of the private key crossed the connection")
            }
            for half in [key.rawRepresentation.prefix(16), key.rawRepresentation.suffix(16)] {
                XCTAssertNil(sent.range(of: half))
            }
        }
    }

    func testARelayInTheMiddleGetsTwoDifferentCodesAndAFinalNoWritesNothingOnEitherSide() throws {
        let authority = try pairingGroup()
        let before = try FolderSnapshot(config("admin").url, root.appendingPathComponent("new"))
        let folder = newcomerFolder
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            let relay = try PairingRelay(to: listener.port)
            var windowCode: String?, newcomerCode: String?
            let window = PairingWindow(authority: authority, listener: listener, maximumAttempts: 1) {
                windowCode = $0.code.digits
                return false  // the person sees two codes that differ
            }
            let (windowResult, newcomerResult) = Self.pair(window, newcomer: try PairingNewcomer(name: "B"), port: relay.port, folder: folder) { prompt in
                newcomerCode = prompt.code.digits
                // The newcomer's person would answer no too; never answering shows the other side's no ends it here.
                return await Self.answerNever()
            }
            relay.close()
            XCTAssertNotNil(windowCode)
            XCTAssertNotNil(newcomerCode)
            XCTAssertNotEqual(windowCode, newcomerCode, "two TLS sessions, two codes (a false alarm has odds 10⁻⁶)")
            guard case .failure(.windowClosed) = windowResult else { return XCTFail("\(windowResult)") }
            guard case .failure(.declinedThere) = newcomerResult else { return XCTFail("\(newcomerResult)") }
        }
        XCTAssertEqual(before, try FolderSnapshot(config("admin").url, root.appendingPathComponent("new")))
    }
}

extension PairingTests {
    func testARelayForwardingEveryByteIsCaughtAtTheCommitmentBeforeAnyCodeAndNothingIsWritten() throws {
        let authority = try pairingGroup()
        let before = try FolderSnapshot(config("admin").url, root.appendingPathComponent("new"))
        let folder = newcomerFolder
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            let relay = try PairingRelay(to: listener.port, verbatim: true)
            let window = PairingWindow(authority: authority, listener: listener, maximumAttempts: 1) { _ in await Self.answerNever() }
            let (windowResult, newcomerResult) = Self.pair(window, newcomer: try PairingNewcomer(name: "B"), port: relay.port,
                                                           folder: folder) { _ in
                XCTFail("the newcomer shows no code")
                return true
            }
            relay.close()
            XCTAssertEqual(relay.relayed, 1)
            guard case .failure(.commitmentMismatch) = newcomerResult else { return XCTFail("\(newcomerResult)") }
            guard case .failure(.windowClosed) = windowResult else { return XCTFail("\(windowResult)") }
        }
        XCTAssertEqual(before, try FolderSnapshot(config("admin").url, root.appendingPathComponent("new")))
    }

    /// A person who never answers: false only once the question is cancelled.
    @MainActor
    static func answerNever() async -> Bool {
        let question = UnansweredQuestion()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { question.continuation = $0 }
        } onCancel: {
            Task { @MainActor in question.cancel() }
        }
    }
}

/// A question nobody answers until it is cancelled.
@MainActor
final class UnansweredQuestion: Sendable {
    var continuation: CheckedContinuation<Bool, Never>?
    func cancel() {
        continuation?.resume(returning: false)
        continuation = nil
    }
}

extension PairingTests {
    func testAFrameOverItsCapOrNotOfItsTypeIsDroppedBeforeAnyCodeAndUsesNoAttempt() throws {
        let authority = try pairingGroup()
        let folder = newcomerFolder
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            var asked = 0
            let window = PairingWindow(authority: authority, listener: listener, maximumAttempts: 1) { _ in
                asked += 1
                return true
            }
            var windowResult: Result<String, PairingError>?
            Task { @MainActor in windowResult = await window.run() }
            // A hello announcing 4 GiB: refused from its length, the connection shut down unread.
            var ended: [Result<PairingMessage, PairingError>] = []
            var elapsed: [Duration] = []
            // One after the other: more at once from one address would meet the listener's cap of 2.
            let frames = [Data([0xFF, 0xFF, 0xFF, 0xF0]), Data([0, 0, 0, 4, 1, 2, 3, 4]), try PairingMessage.nonce(Data(count: 32)).frame()]
            Task { @MainActor in
                for frame in frames {
                    let started = ContinuousClock.now
                    defer { elapsed.append(ContinuousClock.now - started) }
                    do throws(PairingError) {
                        let channel = try await PairingChannel.connect(host: "127.0.0.1", port: listener.port)
                        try await channel.write(frame)
                        ended.append(.success(try await channel.receive(.commit, within: .seconds(15))))
                    } catch {
                        ended.append(.failure(error))
                    }
                }
            }
            spin(until: { ended.count == 3 })
            for outcome in ended {
                guard case .failure(.closed) = outcome else { return XCTFail("\(outcome)") }
            }
            XCTAssertEqual(asked, 0)
            // Dropped on reading, not at the hello's 10 s deadline.
            XCTAssertTrue(elapsed.allSatisfy { $0 < .seconds(5) }, "\(elapsed)")
            // The window's one attempt is still there.
            var newcomerResult: Result<DeviceIdentity, PairingError>?
            try PairingNewcomer(name: "B").startJoining(port: listener.port, folder: folder) { newcomerResult = $0 }
            spin(until: { windowResult != nil && newcomerResult != nil })
            XCTAssertEqual(try windowResult?.get(), "B")
            XCTAssertNoThrow(try newcomerResult?.get())
            XCTAssertEqual(asked, 1)
        }
    }

    func testAWindowWhoseTimeIsUpClosesAndItsPortRefusesConnections() throws {
        let authority = try pairingGroup()
        try MainActor.assumeIsolated {
            let listener = try PairingListener()
            let window = PairingWindow(authority: authority, listener: listener, lifetime: .milliseconds(300)) { _ in true }
            var result: Result<String, PairingError>?
            Task { @MainActor in result = await window.run() }
            spin(until: { result != nil })
            guard case .failure(.windowClosed)? = result else { return XCTFail("\(String(describing: result))") }
            var late: Result<PairingChannel, PairingError>?
            Task { @MainActor in
                do throws(PairingError) { late = .success(try await PairingChannel.connect(host: "127.0.0.1", port: listener.port)) } catch {
                    late = .failure(error)
                }
            }
            spin(until: { late != nil })
            guard case .failure(.connectionFailed)? = late else { return XCTFail("\(String(describing: late))") }
        }
    }
}

extension PairingTests {
    func testTheCodeIsSixDigitsFromEveryInputAndATypedCodeMatchesOnlyItsDigits() {
        let exporter = Data(repeating: 1, count: 32), a = Data(repeating: 2, count: 91), n = Data(repeating: 3, count: 91)
        let nonceA = Data(repeating: 4, count: 32), nonceN = Data(repeating: 5, count: 32)
        let code = PairingCode(exporter: exporter, authorityKey: a, newcomerKey: n, authorityNonce: nonceA, newcomerNonce: nonceN)
        XCTAssertEqual(code.digits.count, 6)
        XCTAssertTrue(code.digits.allSatisfy(\.isASCII))
        XCTAssertEqual(code.description, "\(code.digits.prefix(3)) \(code.digits.suffix(3))")
        // Each input changes it (with odds 10⁻⁶ each of not).
        var other = exporter
        other[0] ^= 1
        for changed in [PairingCode(exporter: other, authorityKey: a, newcomerKey: n, authorityNonce: nonceA, newcomerNonce: nonceN),
                        PairingCode(exporter: exporter, authorityKey: n, newcomerKey: a, authorityNonce: nonceA, newcomerNonce: nonceN),
                        PairingCode(exporter: exporter, authorityKey: a, newcomerKey: n, authorityNonce: nonceN, newcomerNonce: nonceA)] {
            XCTAssertNotEqual(changed, code)
        }
        XCTAssertTrue(code.matches(typed: code.digits))
        XCTAssertTrue(code.matches(typed: " \(code.digits.prefix(3))-\(code.digits.suffix(3)) "))
        XCTAssertFalse(code.matches(typed: String(code.digits.dropLast())))
        XCTAssertFalse(code.matches(typed: code.digits + "0"))
        XCTAssertFalse(code.matches(typed: ""))
        XCTAssertTrue(PairingCode.isWellFormed("123 456"))
        XCTAssertTrue(PairingCode.isWellFormed("123-456"))
        for slip in ["12345", "l23456", "1234567", "", "١٢٣٤٥٦"] { XCTAssertFalse(PairingCode.isWellFormed(slip), slip) }
        // Digits of other scripts (Arabic-Indic, fullwidth) are not these digits.
        let arabic = String(code.digits.unicodeScalars.map { Character(Unicode.Scalar($0.value - 0x30 + 0x660)!) })
        let fullwidth = String(code.digits.unicodeScalars.map { Character(Unicode.Scalar($0.value - 0x30 + 0xFF10)!) })
        // Nor letters whose code point's low byte is a digit's (U+0130…U+0139): compared as scalars, not bytes.
        let lowByte = String(code.digits.unicodeScalars.map { Character(Unicode.Scalar($0.value + 0x100)!) })
        XCTAssertFalse(code.matches(typed: lowByte))
        XCTAssertFalse(code.matches(typed: arabic))
        XCTAssertFalse(code.matches(typed: fullwidth))
        XCTAssertNotEqual(PairingCode.commitment(exporter: exporter, nonce: nonceA), PairingCode.commitment(exporter: other, nonce: nonceA),
                          "the commitment names the session")
    }
}
