@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// Issue 26: a pairing newcomer tries again, a bounded number of times within its time, when
/// an attempt fails for a reason that may pass (the window's port refusing the connection),
/// and says so; a "no" on either side is never tried again.
final class PairingRetryTests: TrustTestCase {
    /// Runs a newcomer against `port` with `retry`; `onRetry` hears each retry (after it is
    /// recorded). Returns its outcome and the failures it tried again after.
    @MainActor
    private static func join(port: UInt16, retry: PairingRetry, folder: URL, timeout: Duration = .seconds(15), answer: Bool = true,
                      onRetry: @escaping @MainActor () -> Void = {}) throws
        -> (result: Result<DeviceIdentity, PairingError>, retried: [(PairingError, Duration, Int)]) {
        let newcomer = try PairingNewcomer(name: "B")
        var result: Result<DeviceIdentity, PairingError>?
        var retried: [(PairingError, Duration, Int)] = []
        Task { @MainActor in
            do throws(PairingError) {
                result = .success(try await newcomer.join(host: "127.0.0.1", port: port, typing: false, timeout: timeout, retry: retry,
                                                          onRetry: { retried.append(($0, $1, $2)); onRetry() },
                                                          confirm: { _ in answer }, save: { try $0.write(to: folder) }))
            } catch {
                result = .failure(error)
            }
        }
        spin(until: { result != nil })
        return (result!, retried)
    }

    /// The window opens only after the newcomer's first attempt was refused: the newcomer
    /// says so, tries again and pairs.
    func testANewcomerTriesAgainWhenTheWindowsPortRefusedItAndThenPairs() throws {
        let authority = try pairingGroup()
        let folder = root.appendingPathComponent("new/device")
        try MainActor.assumeIsolated {
            let port = try FreePort.tcp()
            var window: PairingWindow?
            var windowResult: Result<String, PairingError>?
            let (result, retried) = try Self.join(port: port, retry: .standard, folder: folder) {
                guard window == nil, let listener = try? PairingListener(port: port) else { return }
                let opened = PairingWindow(authority: authority, listener: listener) { _ in true }
                window = opened
                Task { @MainActor in windowResult = await opened.run() }
            }
            XCTAssertEqual(try result.get().name, "B")
            spin(until: { windowResult != nil })
            XCTAssertEqual(try windowResult?.get(), "B")
            XCTAssertEqual(retried.count, 1, "one refused attempt, then the pairing")
            guard case .connectionFailed = retried.first?.0 else { return XCTFail("retried after \(String(describing: retried.first))") }
            XCTAssertEqual(retried.first?.1, PairingRetry.standard.firstDelay)
            XCTAssertEqual(retried.first?.2, PairingRetry.standard.attempts - 1, "attempts left")
        }
    }

    /// With no window at all, the newcomer makes exactly its attempts, the delay doubling, and
    /// then fails with the last failure.
    func testRetriesAreBoundedByTheirCount() throws {
        let folder = root.appendingPathComponent("new/device")
        try MainActor.assumeIsolated {
            let port = try FreePort.tcp()
            let (result, retried) = try Self.join(port: port, retry: PairingRetry(attempts: 3, firstDelay: .milliseconds(50)), folder: folder)
            guard case .failure(.connectionFailed) = result else { return XCTFail("\(result)") }
            XCTAssertEqual(retried.map(\.1), [.milliseconds(50), .milliseconds(100)])
            XCTAssertEqual(retried.map(\.2), [2, 1])
        }
    }

    /// Retries stay within the pairing's time: a delay that would end past it is not waited.
    func testRetriesAreBoundedByThePairingsTime() throws {
        let folder = root.appendingPathComponent("new/device")
        try MainActor.assumeIsolated {
            let port = try FreePort.tcp()
            let (result, retried) = try Self.join(port: port, retry: PairingRetry(attempts: 10, firstDelay: .milliseconds(250)),
                                             folder: folder, timeout: .seconds(1))
            guard case .failure(.connectionFailed) = result else { return XCTFail("\(result)") }
            // 0.25 s and 0.5 s fit in 1 s; 1 s more does not.
            XCTAssertLessThanOrEqual(retried.count, 2)
            XCTAssertFalse(retried.isEmpty)
        }
    }

    /// A "no" by the person here, or by the window's person, ends the pairing at once.
    func testADeclineOnEitherSideIsNeverTriedAgain() throws {
        let authority = try pairingGroup()
        let folder = root.appendingPathComponent("new/device")
        try MainActor.assumeIsolated {
            for (windowSays, newcomerSays) in [(true, false), (false, true)] {
                let listener = try PairingListener()
                var requests = 0
                let window = PairingWindow(authority: authority, listener: listener) { _ in
                    requests += 1
                    return windowSays
                }
                var windowResult: Result<String, PairingError>?
                Task { @MainActor in windowResult = await window.run() }
                let (result, retried) = try Self.join(port: listener.port, retry: .standard, folder: folder, answer: newcomerSays)
                switch result {
                case .failure(.declinedHere) where !newcomerSays, .failure(.declinedThere) where !windowSays: break
                default: XCTFail("window \(windowSays), newcomer \(newcomerSays): \(result)")
                }
                XCTAssertTrue(retried.isEmpty, "tried again after a no: \(retried.map(\.0))")
                window.close()
                spin(until: { windowResult != nil })
                XCTAssertLessThanOrEqual(requests, 1, "one request reached the window")
            }
        }
    }
}
