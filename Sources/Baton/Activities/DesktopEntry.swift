import Foundation

/// The keys of a desktop entry (freedesktop.org Desktop Entry Specification) that decide
/// whether and how an installed app starts, read with GLib's `GKeyFile`.
///
/// It is read before GIO is asked for a `GDesktopAppInfo`, because GIO says nothing about an
/// entry it rejects; this says what is wrong and names the file.
public struct DesktopEntry: Sendable, Equatable {
    /// The file it was read from.
    public var file: URL
    /// `Name`.
    public var name: String
    /// `Exec`, if any.
    public var exec: String?
    /// `DBusActivatable`: the app is started by D-Bus activation where there is a session bus.
    public var isDBusActivatable: Bool
    /// `Hidden`: the entry is deleted (a user's entry hiding a system one).
    public var isHidden: Bool
    /// `StartupNotify`: the app takes a startup-notification id (an activation token).
    public var startupNotify: Bool

    /// The largest desktop entry read, in bytes (they are a few hundred bytes).
    public static let sizeLimit = 64 * 1024
    /// The group that holds the keys.
    public static let group = "Desktop Entry"

    /// Reads and checks the entry at `file`: at most `sizeLimit` bytes (checked before they are
    /// read), a key file with a `[Desktop Entry]` group, `Type=Application`, a `Name`, and an
    /// `Exec` unless `DBusActivatable=true`. Every error is a `DesktopEntryError` naming the file.
    public init(contentsOf file: URL) throws(DesktopEntryError) {
        let keys: KeyFile
        do { keys = try KeyFile(contentsOf: file.path, limit: Self.sizeLimit) } catch {
            throw DesktopEntryError(error, path: file.path)
        }
        guard keys.hasGroup(Self.group) else { throw .malformed(file.path, "it has no [Desktop Entry] group") }

        func string(_ key: String) -> String? { keys.string(Self.group, key) }
        func boolean(_ key: String) throws(DesktopEntryError) -> Bool {
            do { return try keys.boolean(Self.group, key) ?? false } catch { throw DesktopEntryError(error, path: file.path) }
        }
        guard let type = string("Type") else { throw .malformed(file.path, "it has no Type") }
        guard type == "Application" else { throw .malformed(file.path, "its Type is \(PrintableText.escaped(type)), not Application") }
        guard let name = keys.localeString(Self.group, "Name") else { throw .malformed(file.path, "it has no Name") }
        self.file = file
        self.name = name
        exec = string("Exec").flatMap { $0.isEmpty ? nil : $0 }
        isDBusActivatable = try boolean("DBusActivatable")
        isHidden = try boolean("Hidden")
        startupNotify = try boolean("StartupNotify")
        guard exec != nil || isDBusActivatable else { throw .malformed(file.path, "it has no Exec and is not DBusActivatable") }
    }
}

/// Why a desktop entry was not read; each names the file.
public enum DesktopEntryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read: its path and the reason, in words.
    case unreadable(String, String)
    /// The file is larger than `DesktopEntry.sizeLimit`.
    case tooLarge(String, size: Int, limit: Int)
    /// The file is not a desktop entry of an application: its path and what is wrong.
    case malformed(String, String)

    init(_ failure: KeyFile.Failure, path: String) {
        switch failure {
        case .read(.missing): self = .unreadable(path, "No such file or directory")
        case .read(.unreadable(let reason)): self = .unreadable(path, reason)
        case .read(.notARegularFile): self = .unreadable(path, "it is not a regular file")
        case .read(.tooLarge(let size)): self = .tooLarge(path, size: size, limit: DesktopEntry.sizeLimit)
        case .read(.readableByOthers): self = .unreadable(path, "it may be read by others")
        case .malformed(let reason): self = .malformed(path, reason)
        case .badValue(let key, let reason): self = .malformed(path, "\(key): \(reason)")
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read the desktop entry \(path): \(reason)"
        case .tooLarge(let path, let size, let limit): "the desktop entry \(path) is \(size) bytes, more than one may be (\(limit))"
        case .malformed(let path, let reason): "malformed desktop entry \(path): \(reason)"
        }
    }
}
