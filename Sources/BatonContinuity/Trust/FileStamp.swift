import Foundation

/// What `stat` says of a file — device, inode, size, change and modification times — so a
/// cached copy of it can be known to be current without reading it. Files beside an identity
/// are replaced by rename (a new inode), so any write gives another stamp.
struct FileStamp: Equatable {
    private let device: UInt64
    private let inode: UInt64
    private let size: Int64
    private let modified: timespec
    private let changed: timespec

    /// The stamp of the file at `path` now; nil when it does not exist or cannot be looked at.
    /// A caller that stamps the same file often keeps its path, made once: a `URL`'s `path`
    /// is made anew at each use.
    init?(atPath path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        changed = info.st_ctim
    }

    static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
}
