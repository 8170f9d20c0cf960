import Foundation

/// Whole-file reads for the files Baton decodes (handoff files, identity and group files): the
/// file is opened once, and its type, permissions and size are checked on that open file
/// (`fstat`) before a byte is read, so a 2 GiB file costs nothing but the refusal. It is opened
/// without blocking (`O_NONBLOCK`), so a FIFO, a socket or a device where a file is expected
/// is refused at once instead of waiting for a writer.
///
/// (It does not use `Data(contentsOf:)`, which in swift-foundation 6.3 also leaks the 4 KiB
/// buffer it allocates for an empty file: found by LeakSanitizer in the fuzz targets.)
package enum FileContents {
    /// Why a file was not read. Callers turn it into their own error naming the file.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case missing
        /// The system's reason, in words ("Permission denied").
        case unreadable(String)
        case notARegularFile(isFolder: Bool)
        case tooLarge(size: Int)
        /// Asked for a file only its owner may read (a private key), found one others may.
        case readableByOthers(mode: UInt16)

        /// What is wrong, in words (the caller names the file).
        package var description: String {
            switch self {
            case .missing: "it does not exist"
            case .unreadable(let reason): reason
            case .notARegularFile(let isFolder): isFolder ? "it is a folder, not a regular file" : "it is not a regular file (a FIFO, socket or device)"
            case .tooLarge(let size): "it is \(size) bytes, too large"
            case .readableByOthers(let mode): "others may read it (mode \(String(mode, radix: 8)))"
            }
        }
    }

    /// The bytes of the regular file at `path`, at most `limit` of them; with `ownerOnly`, a
    /// file that group or others may read or write is refused.
    package static func read(_ path: String, limit: Int, ownerOnly: Bool = false) throws(Failure) -> Data {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { throw .missing }
            if error == ENXIO { throw .notARegularFile(isFolder: false) }  // a socket, or a device with no driver
            throw .unreadable(error == ENOTDIR ? "a folder on its path is a file" : String(cString: strerror(error)))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(isFolder: info.st_mode & S_IFMT == S_IFDIR) }
        let mode = UInt16(info.st_mode & 0o777)
        if ownerOnly, mode & 0o077 != 0 { throw .readableByOthers(mode: mode) }
        guard info.st_size <= limit else { throw .tooLarge(size: Int(info.st_size)) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)  // one more: a file that grew is seen
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + count, $0.count - count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw .unreadable(String(cString: strerror(errno))) }
            if got == 0 { break }
            count += got
        }
        guard count <= Int(info.st_size) else { throw .unreadable("it changed while it was read") }
        return Data(bytes[..<count])
    }
}
