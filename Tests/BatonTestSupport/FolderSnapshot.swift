import Foundation

/// Every regular file under a folder, with its mode and bytes: taken before and after something
/// that must write nothing, the two are equal.
public struct FolderSnapshot: Equatable, CustomStringConvertible {
    /// Path → (mode, bytes).
    public let files: [String: FileEntry]

    /// A file's mode and bytes.
    public struct FileEntry: Equatable {
        public let mode: Int
        public let data: Data
    }

    /// The files under each of `folders` now (none for a folder that does not exist).
    public init(_ folders: URL...) throws {
        var files: [String: FileEntry] = [:]
        for folder in folders {
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker {
                let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
                guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                files[url.path] = FileEntry(mode: (attributes[.posixPermissions] as? Int) ?? -1, data: try Data(contentsOf: url))
            }
        }
        self.files = files
    }

    public var description: String {
        files.keys.sorted().map { "\($0) \(String(files[$0]!.mode, radix: 8)) \(files[$0]!.data.count) bytes" }.joined(separator: "\n")
    }
}
