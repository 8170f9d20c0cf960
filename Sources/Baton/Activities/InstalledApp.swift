import Foundation

/// A Handoff app installed on this device: its desktop entry and its manifest (see
/// `InstalledApps` for where they are and how they are paired).
public struct InstalledApp: Sendable, Equatable {
    /// The app's id (`CFBundleIdentifier`), which is also its desktop entry's id.
    public var appID: String { manifest.appID }
    /// `applications/<appID>.desktop`, as found first in the XDG data directories.
    public var desktopEntry: DesktopEntry
    /// `baton/apps/<appID>.plist`, as found first in the XDG data directories.
    public var manifest: AppManifest
    /// The manifest's file.
    public var manifestFile: URL

    /// An installed app made of a desktop entry and the manifest read from `manifestFile`.
    public init(desktopEntry: DesktopEntry, manifest: AppManifest, manifestFile: URL) {
        self.desktopEntry = desktopEntry
        self.manifest = manifest
        self.manifestFile = manifestFile
    }
}
