import Baton
@testable import BatonAgent
import Foundation
import XCTest

/// Installed apps found the Linux way (a desktop entry whose id is the app's id, plus its
/// manifest) in the test's own XDG data directories.
final class InstalledAppCatalogTests: XCTestCase {
    private var xdg: XDGFixture!

    override func setUpWithError() throws { xdg = try XDGFixture() }
    override func tearDown() { xdg.remove() }


    func testAnAppIsItsDesktopEntryAndItsManifestAndContinuesItsTeamsTypes() throws {
        try xdg.goodEntry("com.example.Mail")
        try xdg.manifest("com.example.Mail", types: ["com.example.mail.compose"])
        try xdg.goodEntry("com.example.Reader")
        try xdg.manifest("com.example.Reader", types: ["com.example.reader.article"], domains: ["activitycontinuation:reader.example.org"])
        let environment = xdg.environment
        try MainActor.assumeIsolated {
            var reports: [String] = []
            let catalog = InstalledAppCatalog(environment: environment) { reports.append($0) }
            XCTAssertEqual(catalog.apps.map(\.appID), ["com.example.Mail", "com.example.Reader"])
            let mail = try XCTUnwrap(catalog.app(withID: "com.example.Mail"))
            XCTAssertEqual(mail.desktopEntry.exec, "/bin/true")
            XCTAssertEqual(mail.desktopEntry.file.path, environment["XDG_DATA_HOME"]! + "/applications/com.example.Mail.desktop")
            XCTAssertEqual(catalog.app(continuing: activity("com.example.mail.compose"))?.appID, "com.example.Mail")
            XCTAssertNil(catalog.app(continuing: activity("com.example.mail.compose", team: "OTHER")), "another team's type")
            XCTAssertNil(catalog.app(continuing: activity("com.example.unknown")))
            // A web page continues in the app that claims its domain; any other page does not.
            let web = activity(UserActivity.browsingWebType, team: "BROWSER", appID: "org.browser",
                               webpage: URL(string: "https://reader.example.org/a/1"))
            XCTAssertEqual(catalog.app(continuing: web)?.appID, "com.example.Reader")
            var elsewhere = web
            elsewhere.webpageURL = URL(string: "https://evil.example.com/")
            XCTAssertNil(catalog.app(continuing: elsewhere))
            XCTAssertEqual(reports, [])
            // The same pairs decide the browser question.
            XCTAssertTrue(InstalledApps.canContinue(activity("com.example.mail.compose"), environment: environment))
            XCTAssertFalse(InstalledApps.canContinue(elsewhere, environment: environment))
        }
    }

    /// The app the activity came from is preferred over another of its team declaring the type.
    func testTheOriginatingAppIsPreferred() throws {
        for id in ["com.example.A", "com.example.B"] {
            try xdg.goodEntry(id)
            try xdg.manifest(id, types: ["com.example.shared"])
        }
        let environment = xdg.environment
        MainActor.assumeIsolated {
            let catalog = InstalledAppCatalog(environment: environment) { _ in }
            XCTAssertEqual(catalog.app(continuing: activity("com.example.shared", appID: "com.example.B"))?.appID, "com.example.B")
            XCTAssertEqual(catalog.app(continuing: activity("com.example.shared", appID: "com.example.C"))?.appID, "com.example.A")
        }
    }

    /// The user's desktop entry and manifest shadow the system's, each separately.
    func testTheUsersFilesShadowTheSystems() throws {
        try xdg.goodEntry("com.example.Mail", exec: "/bin/false", in: xdg.system)
        try xdg.goodEntry("com.example.Mail", exec: "/bin/true")
        try xdg.manifest("com.example.Mail", types: ["system.type"], in: xdg.system)
        try xdg.goodEntry("com.example.Notes", exec: "/bin/echo", in: xdg.system)
        try xdg.manifest("com.example.Notes", types: ["user.notes"])
        try xdg.manifest("com.example.Notes", types: ["system.notes"], in: xdg.system)
        let environment = xdg.environment
        MainActor.assumeIsolated {
            let catalog = InstalledAppCatalog(environment: environment) { XCTFail("unexpected report: \($0)") }
            let apps = catalog.apps
            XCTAssertEqual(apps.map(\.appID), ["com.example.Notes", "com.example.Mail"])
            XCTAssertEqual(apps.first { $0.appID == "com.example.Mail" }?.desktopEntry.exec, "/bin/true", "the user's entry")
            XCTAssertEqual(apps.first { $0.appID == "com.example.Mail" }?.manifest.activityTypes, ["system.type"])
            XCTAssertEqual(apps.first { $0.appID == "com.example.Notes" }?.desktopEntry.exec, "/bin/echo", "the system's entry")
            XCTAssertEqual(apps.first { $0.appID == "com.example.Notes" }?.manifest.activityTypes, ["user.notes"], "the user's manifest")
            XCTAssertNil(catalog.app(continuing: activity("system.notes", appID: "com.example.Notes")))
        }
    }

    /// Each malformed file is skipped with one message that names it; the good app is still
    /// found, and nothing throws. Reading again says nothing new.
    func testMalformedEntriesAndManifestsAreSkippedWithOneMessageNamingTheFile() throws {
        try xdg.goodEntry("com.example.Good")
        try xdg.manifest("com.example.Good", types: ["good"])
        let cases: [(id: String, entry: String?, expected: String)] = [
            ("com.example.NotAKeyFile", "this is not a key file\n\u{01}", "malformed desktop entry"),
            ("com.example.NoGroup", "[Something Else]\nName=x\n", "has no [Desktop Entry] group"),
            ("com.example.Link", "[Desktop Entry]\nType=Link\nName=x\nURL=https://example.com\n", "its Type is Link, not Application"),
            ("com.example.NoExec", "[Desktop Entry]\nType=Application\nName=x\n", "has no Exec and is not DBusActivatable"),
            ("com.example.BadBool", "[Desktop Entry]\nType=Application\nName=x\nExec=/bin/true\nHidden=perhaps\n", "Hidden"),
            ("com.example.Hidden", "[Desktop Entry]\nType=Application\nName=x\nExec=/bin/true\nHidden=true\n", "is Hidden"),
            ("com.example.NoEntry", nil, "no desktop entry applications/com.example.NoEntry.desktop"),
        ]
        var files: [String: String] = [:]
        for item in cases {
            try xdg.manifest(item.id, types: ["good"])
            files[item.id] = try item.entry.map { try xdg.entry(item.id, $0).path } ?? xdg.dataHome.appendingPathComponent("baton/apps/\(item.id).plist").path
        }
        let huge = try xdg.entry("com.example.Huge", "[Desktop Entry]\nType=Application\nName=x\nExec=/bin/true\n# "
                                                     + String(repeating: "x", count: DesktopEntry.sizeLimit) + "\n")
        try xdg.manifest("com.example.Huge", types: ["good"])
        let notAPlist = xdg.dataHome.appendingPathComponent("baton/apps/com.example.Garbage.plist")
        try Data("not a property list".utf8).write(to: notAPlist)
        try xdg.goodEntry("com.example.Garbage")
        let misnamed = try xdg.manifest("com.example.Misnamed", appID: "com.example.Other", types: ["good"])
        try xdg.goodEntry("com.example.Misnamed")

        let environment = xdg.environment

        MainActor.assumeIsolated {
            var reports: [String] = []
            let catalog = InstalledAppCatalog(environment: environment) { reports.append($0) }
            XCTAssertEqual(catalog.apps.map(\.appID), ["com.example.Good"])
            XCTAssertEqual(catalog.app(continuing: activity("good", appID: "com.example.Hidden"))?.appID, "com.example.Good")
            XCTAssertEqual(reports.count, cases.count + 3, reports.joined(separator: "\n"))
            for item in cases {
                XCTAssertEqual(reports.filter { $0.contains(files[item.id]!) && $0.contains(item.expected) }.count, 1,
                               "\(item.id): \(reports.joined(separator: "\n"))")
            }
            XCTAssertEqual(reports.filter { $0.contains(huge.path) && $0.contains("more than one may be") }.count, 1, "\(reports)")
            XCTAssertEqual(reports.filter { $0.contains(notAPlist.path) && $0.contains("not a property list") }.count, 1, "\(reports)")
            XCTAssertEqual(reports.filter { $0.contains(misnamed.path) && $0.contains("com.example.Other") }.count, 1, "\(reports)")
            // The same problems are not said again.
            _ = catalog.apps
            XCTAssertEqual(reports.count, cases.count + 3)
            // An app with only a manifest is not installed: its activity goes to the browser.
            let page = URL(string: "https://example.com/")
            XCTAssertFalse(InstalledApps.canContinue(activity("only.manifest", appID: "com.example.NoEntry", webpage: page),
                                                     environment: environment))
        }
    }

    /// Bounded: past `maximumManifests` files, the rest are not looked at, and that is said once.
    func testTheNumberOfManifestsReadIsCapped() throws {
        let folder = xdg.dataHome.appendingPathComponent("baton/apps")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<(InstalledApps.maximumManifests + 50) {
            try Data().write(to: folder.appendingPathComponent("x\(index).txt"))
        }
        try xdg.goodEntry("com.example.Late", in: xdg.system)
        try xdg.manifest("com.example.Late", types: ["late"], in: xdg.system)
        let environment = xdg.environment
        MainActor.assumeIsolated {
            var reports: [String] = []
            let catalog = InstalledAppCatalog(environment: environment) { reports.append($0) }
            XCTAssertEqual(catalog.apps.map(\.appID), [], "the system's folder is past the cap")
            XCTAssertEqual(reports.count, 1, "\(reports)")
            XCTAssertTrue(reports.first?.contains("looked at only the first \(InstalledApps.maximumManifests)") ?? false, "\(reports)")
        }
    }
}

private func activity(_ type: String, team: String = "TEAM", appID: String = "com.example.Mail",
                      webpage: URL? = nil) -> NearbyActivity {
    NearbyActivity(device: "A", sequence: 1, activityType: type, title: "t", appID: appID, teamIdentifier: team, webpageURL: webpage)
}
