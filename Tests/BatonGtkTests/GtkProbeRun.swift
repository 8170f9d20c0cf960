#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

extension XCTestCase {
    /// Runs `scenario` under a new virtual display (with `environment` added); returns its output
    /// lines after checking it finished, timed nothing out, and released every signal handler and
    /// source it made.
    func runGtkProbe(_ scenario: String, environment: [String: String] = [:],
                     file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let display = try VirtualDisplay()
        defer { display.stop() }
        let result = try runProduct("GtkProbe", [scenario], environment: display.environment.merging(environment) { $1 },
                                    timeout: 120)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let context = "\(scenario) output:\n\(result.stdout)\nerrors:\n\(result.stderr)"
        XCTAssertEqual(result.status, 0, context, file: file, line: line)
        XCTAssertEqual(lines.last, "DONE", context, file: file, line: line)
        XCTAssertEqual(lines.filter { $0.hasPrefix("TIMEOUT") || $0.hasPrefix("FAIL") }, [], context, file: file, line: line)
        let boxes = lines.first { $0.hasPrefix("CHECK boxes") } ?? "no count"
        let counts = boxes.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
        XCTAssertTrue(counts.count == 2 && counts[0] == counts[1], "callback boxes not released: \(boxes)", file: file, line: line)
        XCTAssertTrue(lines.contains("CHECK gtk toplevels=0 baton windows=0"), "a GTK or Baton window outlived its close\n\(context)",
                      file: file, line: line)
        XCTAssertFalse(result.stderr.contains("CRITICAL"), context, file: file, line: line)
        return lines
    }
}
#endif
