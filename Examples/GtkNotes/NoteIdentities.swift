import Baton
import ExampleSupport
import Foundation

/// Which note is which, across devices: each note of the folder has a random identity (a
/// UUID), kept beside the notes in `.identities`, a JSON object mapping each note's file name
/// to its identity. The identity travels in the note's activity (`"id"`), so that a note
/// continued back to a device where it already is updates that note instead of making a copy
/// (A → B → A brings the person back to the same note).
///
/// The file is read once, with a size limit (`FileContents`, as the notes are); a file that
/// cannot be read or is not such an object is reported once and treated as empty, and entries
/// that are not a note's plain file name and a UUID are left out. It is written atomically, at
/// most `countLimit` entries: past that, the identities of notes no longer in the folder are
/// dropped, and if that is not enough a new identity is not kept (the note still works; it
/// only continues back as a new note).
final class NoteIdentities {
    static let fileName = ".identities"
    /// The most identities kept.
    static let countLimit = 1000
    /// The largest identities file read or written (1,000 entries of long names fit).
    static let sizeLimit = 512 * 1024

    let file: URL
    private let folder: URL
    private var byName: [String: UUID]

    /// The identities of the notes in `folder`, read from its `.identities` file.
    init(folder: URL) {
        self.folder = folder
        file = folder.appendingPathComponent(Self.fileName)
        byName = Self.read(file)
    }

    /// The identity of the note named `name`, if it has one.
    func identity(ofNoteNamed name: String) -> UUID? { byName[name] }

    /// The identity of the note named `name`, made (random) and kept the first time it is asked for.
    func identityMade(forNoteNamed name: String) -> UUID {
        if let identity = byName[name] { return identity }
        let identity = UUID()
        set(identity, forNoteNamed: name)
        return identity
    }

    /// The name of the note whose identity is `identity`, if one here has it.
    func noteName(for identity: UUID) -> String? {
        byName.first { $0.value == identity }?.key
    }

    /// Keeps `identity` as the note `name`'s (and no other note's).
    func set(_ identity: UUID, forNoteNamed name: String) {
        guard Self.isNoteName(name), byName[name] != identity else { return }
        var kept = byName.filter { $0.value != identity }
        kept[name] = nil
        if kept.count >= Self.countLimit {
            kept = kept.filter { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0.key).path) }
        }
        guard kept.count < Self.countLimit else {
            return say("error: the identity of \(shown(name)) is not kept: \(Self.countLimit) notes have one")
        }
        kept[name] = identity
        write(kept)
    }

    /// Forgets the identity of the note named `name` (a new note taking the name of one gone).
    func forget(noteNamed name: String) {
        guard byName[name] != nil else { return }
        var kept = byName
        kept[name] = nil
        write(kept)
    }

    /// Writes `identities` to the file, atomically, and keeps them if that worked.
    private func write(_ identities: [String: UUID]) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(identities.mapValues(\.uuidString))
            guard data.count <= Self.sizeLimit else {
                return say("error: the notes' identities are not kept: \(data.count) bytes, over \(Self.sizeLimit)")
            }
            try data.write(to: file, options: .atomic)
            byName = identities
        } catch {
            say("error: cannot keep the notes' identities in \(shown(file.path)): \(shown("\(error)"))")
        }
    }

    /// A note's file name in the folder: plain, ending in `.txt`, at most 255 bytes.
    static func isNoteName(_ name: String) -> Bool {
        name.hasSuffix(".txt") && name.utf8.count <= 255 && !name.contains("/") && !name.contains("\0") && !name.hasPrefix(".")
    }

    /// The identities in `file`: none if it is missing; none, reported, if it cannot be read
    /// or is not a JSON object of names and UUIDs. Entries that are not are left out, reported.
    private static func read(_ file: URL) -> [String: UUID] {
        let data: Data
        do {
            data = try FileContents.read(file.path, limit: sizeLimit)
        } catch FileContents.Failure.missing {
            return [:]
        } catch {
            say("error: the notes' identities in \(shown(file.path)) are not read: \(error); starting with none")
            return [:]
        }
        guard let entries = try? JSONDecoder().decode([String: String].self, from: data) else {
            say("error: the notes' identities in \(shown(file.path)) are malformed (not a JSON object of names and UUIDs); starting with none")
            return [:]
        }
        var identities: [String: UUID] = [:]
        var taken: Set<UUID> = []
        var ignored = 0
        for (name, value) in entries.sorted(by: { $0.key < $1.key }) {
            guard identities.count < countLimit, isNoteName(name), value.utf8.count <= 36, let identity = UUID(uuidString: value),
                  taken.insert(identity).inserted else {
                ignored += 1
                continue
            }
            identities[name] = identity
        }
        if ignored > 0 { say("error: \(ignored) of the notes' identities in \(shown(file.path)) are ignored (not a note's name and a UUID, or one too many)") }
        return identities
    }
}
