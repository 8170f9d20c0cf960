@testable import Baton
import BatonTestSupport
import Foundation
import Logging
import XCTest

/// Every log record, captured so tests can see what Baton refused and why.
final class CapturedLog: @unchecked Sendable {
    static let shared = CapturedLog()
    private let lock = NSLock()
    private var records: [(message: String, refusal: Refusal?, error: Error?)] = []

    private static let installed: Void = {
        LoggingSystem.bootstrap { _ in CapturingHandler() }
    }()

    static func install() { _ = installed }

    func append(_ message: String, error: Error?) {
        lock.lock(); records.append((message, error as? Refusal, error)); lock.unlock()
    }

    /// Errors attached to log records whose message mentions `text`.
    func errors(mentioning text: String) -> [Error] {
        lock.lock(); defer { lock.unlock() }
        return records.filter { $0.message.contains(text) }.compactMap(\.error)
    }

    /// Messages of every log record that mentions `text`.
    func messages(mentioning text: String) -> [String] {
        lock.lock(); defer { lock.unlock() }
        return records.map(\.message).filter { $0.contains(text) }
    }

    /// Refusals logged so far whose message mentions `text`.
    func refusals(mentioning text: String) -> [(message: String, refusal: Refusal?)] {
        lock.lock(); defer { lock.unlock() }
        return records.filter { $0.refusal != nil && $0.message.contains(text) }.map { ($0.message, $0.refusal) }
    }
}

struct CapturingHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        CapturedLog.shared.append(event.message.description, error: event.error)
    }
}

/// A fresh application for each test, with the log captured.
class BatonTestCase: XCTestCase {
    override func setUp() async throws {
        CapturedLog.install()
        await MainActor.run { Application.shared.resetForTesting() }
    }

}

/// A unique name, so a test finds its own log lines.
func unique(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

/// Asserts that exactly one refusal of `kind` mentioning `text` was logged.
func assertRefused(_ kind: String, mentioning text: String, file: StaticString = #filePath, line: UInt = #line) {
    let found = CapturedLog.shared.refusals(mentioning: text)
    XCTAssertEqual(found.map(\.refusal?.kind), [kind], "refusals mentioning \(text)", file: file, line: line)
}
