import Foundation

/// Whole-file reads for the files Baton decodes (handoff files, identity files).
///
/// `Data(contentsOf:)` in swift-foundation 6.3 leaks the 4 KiB buffer it allocates when the
/// file is empty (found by LeakSanitizer in the fuzz targets, reading an empty roster; an empty
/// handoff file does the same); an empty regular file is answered here without asking
/// Foundation. Everything else, errors included, is `Data(contentsOf:)`'s.
package enum FileContents {
    package static func read(_ url: URL) throws -> Data {
        var info = stat()
        if stat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size == 0 { return Data() }
        return try Data(contentsOf: url)
    }
}
