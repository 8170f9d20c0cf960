import Baton
import ExampleSupport
import Foundation

/// A note: a plain-text file. Its title is its first line that is not blank.
struct Note: Equatable {
    /// Where it is kept.
    var file: URL
    var text: String
    /// Its colour label (`NoteLabelStrip`): kept with the note while it is open and carried
    /// in its user activity; not written to the text file.
    var label: NoteLabel = .none

    var name: String { file.lastPathComponent }
    var title: String {
        let line = text.split(separator: "\n", omittingEmptySubsequences: true)
            .first { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        return line.map { String($0.prefix(80)).trimmingCharacters(in: .whitespaces) } ?? "Untitled"
    }
}

/// The folder of notes: `NAME.txt` files, listed newest first, each with its identity
/// (`NoteIdentities`). A note that arrives from another device updates the note here with its
/// identity; otherwise it is saved under a name of its own (never over another note).
struct NoteStore {
    /// The largest note this app reads or takes from another device.
    static let sizeLimit = 48 * 1024
    /// The most notes listed.
    static let listLimit = 500

    let folder: URL
    /// The notes' identities, kept in the folder.
    let identities: NoteIdentities

    /// The store in `folder` (made, private to the user, if missing).
    init(folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.folder = folder
        identities = NoteIdentities(folder: folder)
    }

    /// `$XDG_DATA_HOME/baton-gtknotes` (default `~/.local/share/baton-gtknotes`).
    static var defaultFolder: URL {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
        return URL(fileURLWithPath: dataHome).appendingPathComponent("baton-gtknotes")
    }

    /// The notes in the folder, newest first (at most `listLimit`; files too large are left out).
    func notes() -> [Note] {
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey]
        let files = (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys)) ?? []
        let dated = files.filter { $0.pathExtension == "txt" }.compactMap { file -> (URL, Date)? in
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true,
                  (values.fileSize ?? 0) <= Self.sizeLimit else { return nil }
            return (file, values.contentModificationDate ?? .distantPast)
        }
        return dated.sorted { $0.1 > $1.1 }.prefix(Self.listLimit).compactMap { try? Self.load($0.0) }
    }

    /// The note in `file` (any text file, inside the folder or not).
    static func load(_ file: URL) throws -> Note {
        let data = try FileContents.read(file.path, limit: sizeLimit)
        return Note(file: file, text: String(decoding: data, as: UTF8.self))
    }

    /// Writes `note` to its file, atomically; a note of the folder gets its identity.
    func save(_ note: Note) throws {
        try Data(note.text.utf8).write(to: note.file, options: .atomic)
        _ = identity(of: note)
    }

    /// The identity of `note`, made the first time; nil for a file outside the folder (opened
    /// with the app), which is not this folder's to name.
    func identity(of note: Note) -> UUID? {
        guard note.file.deletingLastPathComponent().standardizedFileURL.path == folder.standardizedFileURL.path else { return nil }
        return identities.identityMade(forNoteNamed: note.name)
    }

    /// A new, empty note with a name of its own.
    func newNote() -> Note {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH.mm.ss"
        let stamp = formatter.string(from: Date())
        let file = uniqueFile(for: "Note \(stamp).txt")
        identities.forget(noteNamed: file.lastPathComponent)  // a note gone may have had the name
        return Note(file: file, text: "")
    }

    /// Where a note from another device goes, with `text`. If `identity` is a note's here, that
    /// note (same file, its name here kept). Otherwise a new note, which keeps `identity` (or
    /// a new one): named `remoteName` made plain (`IncomingFile.safeName`), ending in `.txt`;
    /// if a note of that name holds other text or is another note, a new name beside it.
    func incoming(named remoteName: String, text: String, identity: UUID?) -> Note {
        if let identity, let name = identities.noteName(for: identity),
           let existing = try? Self.load(folder.appendingPathComponent(name)) {
            return Note(file: existing.file, text: text)
        }
        var name = IncomingFile.safeName(remoteName) ?? "Note.txt"
        if !name.hasSuffix(".txt") { name += ".txt" }
        let file = folder.appendingPathComponent(name)
        let note: Note
        if let existing = try? Self.load(file), existing.text == text, identities.identity(ofNoteNamed: name) == nil {
            note = existing
        } else {
            note = Note(file: FileManager.default.fileExists(atPath: file.path) ? uniqueFile(for: name) : file, text: text)
        }
        identities.set(identity ?? UUID(), forNoteNamed: note.name)
        return note
    }

    /// `name` in the folder, or `name-2.txt`, `name-3.txt`… if taken.
    private func uniqueFile(for name: String) -> URL {
        let base = (name as NSString).deletingPathExtension
        for attempt in 1... {
            let file = folder.appendingPathComponent(attempt == 1 ? name : "\(base)-\(attempt).txt")
            if !FileManager.default.fileExists(atPath: file.path) { return file }
        }
        fatalError("unreachable")
    }
}
