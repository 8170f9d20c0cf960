import Foundation
import XCTest

/// The test's own XDG data directories under a temporary folder (never the machine's): a
/// user's `data` ($XDG_DATA_HOME) and a system's `system` ($XDG_DATA_DIRS), with helpers to put
/// desktop entries and app manifests in them. Removed by `remove()`.
struct XDGFixture {
    let root: URL
    var dataHome: URL { root.appendingPathComponent("data") }
    var system: URL { root.appendingPathComponent("system") }
    var environment: [String: String] {
        ["HOME": root.path, "XDG_DATA_HOME": dataHome.path, "XDG_DATA_DIRS": system.path]
    }

    init() throws {
        root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-launch-\(UUID().uuidString)")
        for folder in [dataHome, system] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    /// Writes `text` as `applications/<appID>.desktop` under `folder`.
    @discardableResult
    func entry(_ appID: String, _ text: String, in folder: URL? = nil) throws -> URL {
        let file = (folder ?? dataHome).appendingPathComponent("applications/\(appID).desktop")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A well-formed application entry starting `exec`.
    @discardableResult
    func goodEntry(_ appID: String, exec: String = "/bin/true", extra: String = "", in folder: URL? = nil) throws -> URL {
        try entry(appID, "[Desktop Entry]\nType=Application\nName=\(appID)\nExec=\(exec)\n\(extra)", in: folder)
    }

    /// Writes a manifest `baton/apps/<fileID>.plist` under `folder`.
    @discardableResult
    func manifest(_ fileID: String, appID: String? = nil, team: String = "TEAM", types: [String] = [],
                  domains: [String] = [], in folder: URL? = nil) throws -> URL {
        let file = (folder ?? dataHome).appendingPathComponent("baton/apps/\(fileID).plist")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let plist: [String: Any] = ["CFBundleIdentifier": appID ?? fileID, "BatonTeamIdentifier": team,
                                    "NSUserActivityTypes": types, "BatonAssociatedDomains": domains]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: file)
        return file
    }
}
