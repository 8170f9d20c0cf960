import Foundation

/// Files of a group or an identity written together or not at all.
///
/// `write(_:to:mode:)` only writes a temporary file beside its target (created exclusively,
/// never through a symbolic link, flushed to disk); nothing a reader sees changes until
/// `commit()`. The commit moves aside the files it was told to keep, keeps a hard link to
/// each file it replaces, then renames every temporary file into place. If any step fails,
/// every step taken is undone, so the folders are exactly as before, and the error names the
/// file. Temporary files of a transaction never committed are removed when it ends, and so
/// are folders it created that stay empty.
package final class FileTransaction {
    private struct Staged {
        let temporary: URL
        let target: URL
    }

    private var staged: [Staged] = []
    private var createdFolders: [URL] = []
    private var keptAside: (files: [URL], folder: URL)?
    private var committed = false

    package init() {}

    /// Writes `data` to a temporary file beside `target`, with `mode`; creates the folder
    /// (0700) if it does not exist.
    package func write(_ data: Data, to target: URL, mode: UInt16) throws(TrustError) {
        let folder = target.deletingLastPathComponent()
        try makeFolder(folder)
        let temporary = folder.appendingPathComponent(".\(target.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(mode))
        guard descriptor >= 0 else { throw .cannotWrite(path: target.path, reason: SecureFiles.systemReason(errno)) }
        staged.append(Staged(temporary: temporary, target: target))
        defer { close(descriptor) }
        fchmod(descriptor, mode_t(mode))  // whatever the umask made of it
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw .cannotWrite(path: target.path, reason: SecureFiles.systemReason(errno)) }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw .cannotWrite(path: target.path, reason: SecureFiles.systemReason(errno)) }
    }

    /// At the commit, moves those of `files` that exist into `folder` (created with mode
    /// 0700) instead of replacing them; they stay there after a successful commit.
    func keepAside(_ files: [URL], in folder: URL) {
        keptAside = (files, folder)
    }

    /// Makes every file written visible at once, or none of them: see the type's summary.
    package func commit() throws(TrustError) {
        var undo: [() -> Void] = []
        var backups: [URL] = []
        do throws(TrustError) {
            if let kept = keptAside {
                let (files, folder) = kept
                var present: [URL] = []
                for file in files { if try SecureFiles.exists(file) { present.append(file) } }
                if !present.isEmpty {
                    guard mkdir(folder.path, 0o700) == 0 else { throw .cannotWrite(path: folder.path, reason: SecureFiles.systemReason(errno)) }
                    undo.append { rmdir(folder.path) }
                    for file in present {
                        let aside = folder.appendingPathComponent(file.lastPathComponent)
                        guard rename(file.path, aside.path) == 0 else {
                            throw .cannotWrite(path: aside.path, reason: SecureFiles.systemReason(errno))
                        }
                        undo.append { rename(aside.path, file.path) }
                    }
                }
            }
            for file in staged {
                if try SecureFiles.exists(file.target) {
                    let backup = file.target.deletingLastPathComponent()
                        .appendingPathComponent(".\(file.target.lastPathComponent).old-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
                    guard link(file.target.path, backup.path) == 0 else {
                        throw .cannotWrite(path: file.target.path, reason: SecureFiles.systemReason(errno))
                    }
                    backups.append(backup)
                    undo.append { unlink(backup.path) }
                    guard rename(file.temporary.path, file.target.path) == 0 else {
                        throw .cannotWrite(path: file.target.path, reason: SecureFiles.systemReason(errno))
                    }
                    undo.append { rename(backup.path, file.target.path) }
                } else {
                    guard rename(file.temporary.path, file.target.path) == 0 else {
                        throw .cannotWrite(path: file.target.path, reason: SecureFiles.systemReason(errno))
                    }
                    undo.append { unlink(file.target.path) }
                }
            }
        } catch {
            for step in undo.reversed() { step() }
            throw error
        }
        committed = true
        for backup in backups { unlink(backup.path) }
        for folder in Set(staged.map { $0.target.deletingLastPathComponent().path }) { syncFolder(folder) }
    }

    private func makeFolder(_ folder: URL) throws(TrustError) {
        guard try !SecureFiles.exists(folder) else { return }
        try makeFolder(folder.deletingLastPathComponent())
        guard mkdir(folder.path, 0o700) == 0 || errno == EEXIST else {
            throw .cannotWrite(path: folder.path, reason: SecureFiles.systemReason(errno))
        }
        createdFolders.append(folder)
    }

    private func syncFolder(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    deinit {
        guard !committed else { return }
        for file in staged { unlink(file.temporary.path) }
        for folder in createdFolders.reversed() { rmdir(folder.path) }  // only removes empty ones
    }
}
