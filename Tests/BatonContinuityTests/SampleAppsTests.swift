@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Crypto
import Foundation
import XCTest

/// The seed samples as Baton apps, each handed off between two real processes, each its own
/// device of one group.
final class SampleAppsTests: TrustTestCase {
    /// Starts `product` as device `folder`; returns it and the address it listens on.
    private func originate(_ product: String, _ folder: String, _ arguments: [String]) throws -> (RunningProcess, String) {
        let process = try RunningProcess(product: product, ["--device", folder, "--listen", "127.0.0.1:0"] + arguments)
        return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
    }

    /// continuing-user-activities-with-handoff, "Update the App's State" and "Update the
    /// Original Device's State": the store-editing activity continues with the region and the
    /// store from `userInfo`, and the originating side dismisses its popover.
    func testMapViewerContinuesStoreEditingAndTheOriginDismissesItsPopover() throws {
        let folders = try devices("A", "B")
        let (a, address) = try originate("baton-mapviewer", folders[0], ["--edit-store", "Apple Union Square", "--favorite"])
        let b = try RunningProcess(product: "baton-mapviewer", ["--device", folders[1], "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby"])
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        XCTAssertTrue(b.output.contains("restoreUserActivityState: map at center 37.7887, -122.4075, span 0.05 × 0.05"), b.output)
        XCTAssertTrue(b.output.contains("restoreUserActivityState: editing Apple Union Square at 37.7887, -122.4075 (favorite: yes)"), b.output)
        XCTAssertTrue(a.output.contains("userActivityWasContinued: editing continues on another device; dismissed the popover for Apple Union Square"),
                      a.output)
    }

    /// continuing-user-activities-with-handoff, "Manage User Activities": the region, encoded by
    /// `updateViewingRegion(_:)`, comes back through `viewingRegion()`.
    func testMapViewerContinuesTheViewedRegion() throws {
        let folders = try devices("A", "B")
        let (a, address) = try originate("baton-mapviewer", folders[0], ["--view-region", "40.7637,-73.9727,0.2,0.3"])
        defer { a.terminate() }
        let b = try RunningProcess(product: "baton-mapviewer", ["--device", folders[1], "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby"])
        XCTAssertNotNil(b.waitForLine(containing: "restoreUserActivityState: map at center 40.7637, -73.9727, span 0.2 × 0.3"), b.output)
        a.terminate()
        XCTAssertEqual(b.waitForExit(), 0, b.output)
    }

    /// handoff-programming-guide, "Using Continuation Streams": the draft continues from the
    /// payload, and its 12 MB attachment arrives over continuation streams, byte for byte.
    func testMailContinuesADraftAndItsAttachmentArrivesOverStreams() throws {
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("photo.raw")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<(12 * 1024 * 1024 / 8)).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
        try bytes.write(to: attachment)
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let (a, address) = try originate("baton-mail", folders[0], ["--compose", "--to", "ada@example.org", "--subject", "Photos",
                                                                   "--body", "Here it is.", "--attach", attachment.path])
        let b = try RunningProcess(product: "baton-mail", ["--device", folders[1], "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby", "--save-to", inbox.path])
        XCTAssertEqual(b.waitForExit(timeout: 60), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        XCTAssertTrue(b.output.contains("restoreUserActivityState: draft \"Photos\" to ada@example.org: Here it is."), b.output)
        XCTAssertTrue(b.output.contains("received photo.raw over continuation streams: \(bytes.count) bytes, checksum matches"), b.output)
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("photo.raw")), bytes)
        XCTAssertTrue(a.output.contains("sent photo.raw over continuation streams (\(bytes.count) bytes)"), a.output)
    }

    /// The Reader continues in the Reader on another device, with page and scroll position.
    func testReaderContinuesInTheReaderOnAnotherDevice() throws {
        let folders = try devices("A", "B")
        let (a, address) = try originate("baton-reader", folders[0], ["--read", "7", "--page", "3", "--scroll", "0.42"])
        let b = try RunningProcess(product: "baton-reader", ["--device", folders[1], "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby"])
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        XCTAssertTrue(b.output.contains("restoreUserActivityState: article 7, page 3, scrolled to 0.42"), b.output)
        XCTAssertTrue(a.output.contains("userActivityWasContinued: article 7 continues elsewhere"), a.output)
    }

    /// handoff-programming-guide, "Native App-to-Web Browser Handoff": where no Reader is
    /// installed, `baton continue` opens the article's page in the browser (the test's own,
    /// installed through XDG settings), and the Reader that was reading is told.
    func testReaderContinuesInTheBrowserWhereNoReaderIsInstalled() throws {
        let folders = try devices("A")
        let authority = try GroupAuthority.load(from: config("admin"))
        let cli = config("cli")
        try authority.issueDevice(named: "B").write(to: cli.deviceDirectory)
        let browser = try TestBrowser(in: root)
        let (a, address) = try originate("baton-reader", folders[0], ["--read", "7", "--page", "3"])
        let opened = try RunningProcess(executable: URL(fileURLWithPath: "/bin/cat"), [browser.fifo.path])
        let continued = try runProduct("baton", ["continue", "--peer", address, "--config", cli.url.path], environment: browser.environment)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertNotNil(opened.waitForLine(containing: "browser opened https://reader.example.org/articles/7?page=3"), opened.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        XCTAssertTrue(a.output.contains("userActivityWasContinued"), a.output)
    }
}

/// A web browser of the test's own: a desktop entry and `mimeapps.list` in private XDG
/// directories make it the default for http and https; it writes each URL to a FIFO.
struct TestBrowser {
    let fifo: URL
    let environment: [String: String]

    init(in root: URL) throws {
        let data = root.appendingPathComponent("data"), configHome = root.appendingPathComponent("xdg-config")
        let applications = data.appendingPathComponent("applications"), empty = root.appendingPathComponent("no-system-data")
        for directory in [applications, configHome, empty] {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        fifo = root.appendingPathComponent("opened")
        guard mkfifo(fifo.path, 0o600) == 0 else { throw POSIXError(.EEXIST) }
        let handler = root.appendingPathComponent("browser.sh")
        try "#!/bin/sh\nprintf 'browser opened %s\\n' \"$1\" > '\(fifo.path)'\n".write(to: handler, atomically: true, encoding: .utf8)
        chmod(handler.path, 0o755)
        try """
            [Desktop Entry]
            Type=Application
            Name=Test browser
            Exec=\(handler.path) %u
            MimeType=x-scheme-handler/http;x-scheme-handler/https;
            """.write(to: applications.appendingPathComponent("baton-test-browser.desktop"), atomically: true, encoding: .utf8)
        try """
            [Default Applications]
            x-scheme-handler/http=baton-test-browser.desktop
            x-scheme-handler/https=baton-test-browser.desktop
            """.write(to: configHome.appendingPathComponent("mimeapps.list"), atomically: true, encoding: .utf8)
        // Only the test's own data and settings: no system browser, no system-wide app manifests.
        environment = ["XDG_DATA_HOME": data.path, "XDG_CONFIG_HOME": configHome.path, "XDG_DATA_DIRS": empty.path]
    }
}
