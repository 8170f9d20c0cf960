@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// handoff-programming-guide, "Native App-to-Web Browser Handoff": when no app on the
/// continuing device continues the activity, and it has a `webpageURL`, the default web
/// browser opens that URL. The browser here is the test's own handler, installed through the
/// XDG settings GIO follows (`mimeapps.list`, a desktop entry); it writes the URL to a FIFO.
final class WebHandoffTests: TrustTestCase {
    private var environment: [String: String] = [:]
    private var fifo: URL!
    private var cli: ConfigDirectory!
    private let page = "https://reader.example.org/articles/7?page=3"

    override func setUpWithError() throws {
        try super.setUpWithError()
        let browser = try TestBrowser(in: root)
        fifo = browser.fifo
        environment = browser.environment
    }

    /// Device A (a probe process) advertises an activity with a web page; returns its address.
    private func originatingDevice(_ flags: [String]) throws -> (RunningProcess, String) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        cli = config("cli")
        try authority.issueDevice(named: "B").write(to: cli.deviceDirectory)
        let probe = try RunningProcess(product: "DeviceProbe", [a.path, "--ok"] + flags)
        return (probe, try XCTUnwrap(probe.listeningAddress(), probe.output).description)
    }

    private func baton(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProduct("baton", arguments + ["--config", cli.url.path], environment: environment)
    }

    func testNearbyMarksTheEntryAndContinueOpensItInTheBrowser() throws {
        let (probe, address) = try originatingDevice(["--webpage", page])
        defer { probe.terminate() }
        let nearby = try baton(["nearby", "--peer", address])
        XCTAssertEqual(nearby.status, 0, nearby.stderr)
        XCTAssertTrue(nearby.stdout.contains("A\t\"Probe\"\tcom.example.probe.editing\tcom.example.probe\topens in the browser: \(page)"),
                      nearby.stdout)

        let browser = try RunningProcess(executable: URL(fileURLWithPath: "/bin/cat"), [fifo.path])
        let continued = try baton(["continue", "--peer", address])
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertTrue(continued.stdout.contains("opened \(page) in the web browser"), continued.stdout)
        // The stand-in browser's own output: the page it was asked to open.
        XCTAssertNotNil(browser.waitForLine(containing: "browser opened \(page)"), browser.output)
        XCTAssertTrue(probe.waitForContinuedElsewhere(), probe.output)
    }

    /// An installed app of the same team that declares the type keeps the activity out of the
    /// browser: it is that app's to continue.
    func testAnInstalledAppThatContinuesTheTypeKeepsItOutOfTheBrowser() throws {
        let (probe, address) = try originatingDevice(["--webpage", page])
        defer { probe.terminate() }
        let apps = root.appendingPathComponent("data/baton/apps")
        try FileManager.default.createDirectory(at: apps, withIntermediateDirectories: true)
        let manifest: [String: Any] = ["CFBundleIdentifier": "com.example.probe", "BatonTeamIdentifier": "PROBETEAM",
                                       "NSUserActivityTypes": ["com.example.probe.editing"]]
        try PropertyListSerialization.data(fromPropertyList: manifest, format: .xml, options: 0)
            .write(to: apps.appendingPathComponent("com.example.probe.plist"))
        // An installed app is its manifest and its desktop entry (InstalledApps).
        try "[Desktop Entry]\nType=Application\nName=Probe\nExec=/bin/true\n"
            .write(to: root.appendingPathComponent("data/applications/com.example.probe.desktop"), atomically: true, encoding: .utf8)
        let nearby = try baton(["nearby", "--peer", address])
        XCTAssertFalse(nearby.stdout.contains("opens in the browser"), nearby.stdout)
        let continued = try baton(["continue", "--peer", address])
        XCTAssertEqual(continued.status, 1)
        XCTAssertTrue(continued.stderr.contains("an app installed here continues com.example.probe.editing"), continued.stderr)

        // An app of another team declaring the type does not count (about-handoff, "Handoff Interactions").
        let other: [String: Any] = ["CFBundleIdentifier": "com.other.probe", "BatonTeamIdentifier": "OTHERTEAM",
                                    "NSUserActivityTypes": ["com.example.probe.editing"]]
        try PropertyListSerialization.data(fromPropertyList: other, format: .xml, options: 0)
            .write(to: apps.appendingPathComponent("com.example.probe.plist"))
        XCTAssertTrue(try baton(["nearby", "--peer", address]).stdout.contains("opens in the browser: \(page)"))
    }

    func testAnActivityWithoutAWebPageDoesNotOpen() throws {
        let (probe, address) = try originatingDevice([])
        defer { probe.terminate() }
        let continued = try baton(["continue", "--peer", address])
        XCTAssertEqual(continued.status, 1)
        XCTAssertTrue(continued.stderr.contains("has no web page"), continued.stderr)
        XCTAssertFalse(probe.diagnosticEvents.contains { if case .continuedElsewhere = $0 { true } else { false } }, probe.output)
    }

    func testOnlyWebPagesOpen() throws {
        try MainActor.assumeIsolated {
            XCTAssertThrowsError(try WebBrowser.open(URL(string: "file:///etc/passwd")!)) { error in
                XCTAssertEqual(error as? WebHandoffError, .notAWebPage("file:///etc/passwd"))
            }
        }
    }
}
