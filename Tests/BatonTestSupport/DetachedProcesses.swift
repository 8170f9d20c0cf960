import CGLib
import Foundation

/// Processes a test's children started in a session of their own — an agent an app or `baton`
/// autostarted detaches, so ending the child's process group misses it — found by the folder
/// their command line names.
public enum DetachedProcesses {
    /// Ends (SIGKILL) every process whose command line names `folder`, the test's own private
    /// folder, and waits (5 s at most each) for each to be gone. Call it in `tearDown`, so a test that
    /// failed before stopping what its children started leaves nothing running.
    public static func end(naming folder: URL) {
        let needle = folder.path
        let me = getpid()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        let found: [pid_t] = entries.compactMap { entry in
            guard let pid = pid_t(entry), pid != me,
                  let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains { $0.contains(needle) } ? pid : nil
        }
        for pid in found {
            // Through a pidfd, so a number reused since the scan is never signalled, and its
            // end is waited for by poll, not by looking again.
            let pidfd = baton_pidfd_open(pid)
            guard pidfd >= 0 else { continue }
            defer { close(pidfd) }
            guard baton_pidfd_send_signal(pidfd, SIGKILL) == 0 else { continue }
            var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 5_000)
        }
    }
}
