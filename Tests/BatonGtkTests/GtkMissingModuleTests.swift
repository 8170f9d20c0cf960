import BatonTestSupport
import Foundation
import XCTest

/// Where GTK 4's development files are missing, an app that depends on BatonGtk is told what to
/// install: the product still resolves, to an empty module whose warning says so (checked here
/// with `BATON_WITHOUT_GTK=1`, which builds the package as a machine without GTK does).
final class GtkMissingModuleTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    func testWithoutGtkBatonGtkIsAnEmptyModuleWhoseWarningSaysWhatToInstall() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_WITHOUT_GTK"] = "1"
        // A scratch folder of its own: `swift test` holds the package's .build while it runs.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("baton-manifest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let manifest = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["swift", "package", "--package-path", Self.root.path, "--scratch-path", scratch.path, "dump-package"],
                                      environment: environment, timeout: 120)
        XCTAssertEqual(manifest.status, 0, manifest.stderr)
        let package = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(manifest.stdout.utf8)) as? [String: Any])
        let products = (package["products"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertTrue(products.contains("BatonGtk"), "\(products)")
        let target = (package["targets"] as? [[String: Any]] ?? []).first { $0["name"] as? String == "BatonGtk" }
        let path = try XCTUnwrap(target?["path"] as? String, "\(String(describing: target))")
        XCTAssertEqual(path, "Sources/BatonGtkUnavailable")
        XCTAssertEqual((target?["dependencies"] as? [Any])?.count ?? 0, 0, "it needs nothing of GTK")

        let source = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(path).path)
            .first { $0.hasSuffix(".swift") })
        let compiled = try runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                      ["swiftc", "-typecheck", "-parse-as-library", Self.root.appendingPathComponent(path).appendingPathComponent(source).path],
                                      environment: ProcessInfo.processInfo.environment, timeout: 120)
        XCTAssertEqual(compiled.status, 0, "a warning, not an error: the package still builds without GTK: \(compiled.stderr)")
        XCTAssertTrue(compiled.stderr.contains("warning:") && compiled.stderr.contains("apt-get install libgtk-4-dev"), compiled.stderr)
    }
}
