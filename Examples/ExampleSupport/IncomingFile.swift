import Baton
import Foundation

/// A file another device sends, saved into a folder without trusting anything it says.
///
/// The name it gives is reduced to a plain file name (`safeName(_:)`); the bytes go to a
/// temporary file created in the folder (exclusively, never through a symbolic link); only
/// `keep()` gives it its name, as a new file that replaces nothing, inside the folder. A file
/// not kept — the transfer failed, or its checksum did not match — is removed.
public final class IncomingFile {
    /// Why an incoming file was refused or could not be saved.
    public enum Failure: Error, CustomStringConvertible {
        case unusableName(String)
        case cannotWrite(path: String, reason: String)
        case tooLarge(announced: Int, limit: Int)
        case moreThanAnnounced(announced: Int)

        public var description: String {
            switch self {
            case .unusableName(let name): "'\(PrintableText.escaped(name))' is not a usable file name"
            case .cannotWrite(let path, let reason): "cannot write \(PrintableText.escaped(path)): \(reason)"
            case .tooLarge(let announced, let limit): "the file would be \(announced) bytes, over the limit of \(limit)"
            case .moreThanAnnounced(let announced): "the sender sent more than the \(announced) bytes it announced"
            }
        }
    }

    /// The file name to save `remoteName` under, or nil if nothing usable is left: its last
    /// path component (`/` and `\` both separate), without characters that do not show as
    /// themselves (`PrintableText`), without leading dots or surrounding spaces, at most 255
    /// bytes. `../../victim-dir/pwned.txt` becomes `pwned.txt`; `..` and `.` give nil.
    public static func safeName(_ remoteName: String) -> String? {
        let last = remoteName.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        var name = String(String.UnicodeScalarView(last.unicodeScalars.filter(PrintableText.showsAsItself)))
        name = name.trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        name = name.trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, name.utf8.count <= 255 else { return nil }
        return name
    }

    public let folder: URL
    public let name: String
    private let temporary: URL
    private var descriptor: Int32
    private var kept = false

    /// Starts a file named `remoteName` (made safe) in `folder`. Throws `unusableName` if no
    /// safe name is left.
    public init(in folder: URL, named remoteName: String) throws {
        guard let name = Self.safeName(remoteName) else { throw Failure.unusableName(remoteName) }
        guard let resolved = realpath(folder.path, nil) else {
            throw Failure.cannotWrite(path: folder.path, reason: String(cString: strerror(errno)))
        }
        self.folder = URL(fileURLWithPath: String(cString: resolved))
        free(resolved)
        self.name = name
        temporary = self.folder.appendingPathComponent(".incoming-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Failure.cannotWrite(path: temporary.path, reason: String(cString: strerror(errno))) }
    }

    /// Appends `bytes`.
    public func write(_ bytes: Data) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Failure.cannotWrite(path: folder.appendingPathComponent(name).path, reason: String(cString: strerror(errno))) }
            written += count
        }
    }

    /// Gives the file its name in the folder, as a new file: `name`, or `name-2`, `name-3`…
    /// (before the extension) if that is taken. Nothing in the folder is replaced, and no
    /// link is followed. Returns where it is.
    public func keep() throws -> URL {
        guard fsync(descriptor) == 0 else { throw Failure.cannotWrite(path: temporary.path, reason: String(cString: strerror(errno))) }
        let base = (name as NSString).deletingPathExtension, suffix = (name as NSString).pathExtension
        for attempt in 1...100 {
            let candidate = attempt == 1 ? name : "\(base)-\(attempt)" + (suffix.isEmpty ? "" : ".\(suffix)")
            let destination = folder.appendingPathComponent(candidate)
            guard destination.deletingLastPathComponent().path == folder.path else { throw Failure.unusableName(candidate) }
            if link(temporary.path, destination.path) == 0 {
                kept = true
                unlink(temporary.path)
                return destination
            }
            guard errno == EEXIST else { throw Failure.cannotWrite(path: destination.path, reason: String(cString: strerror(errno))) }
        }
        throw Failure.cannotWrite(path: folder.appendingPathComponent(name).path, reason: "a hundred files of that name exist")
    }

    /// Removes the file unless it was kept.
    public func discard() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        if !kept { unlink(temporary.path) }
    }

    deinit { discard() }
}
