import Baton
import Foundation

/// Where the standard output and error of an app the agent launches go, so that a person can
/// read them: `$XDG_STATE_HOME/baton/apps/<appID>.log` (by default
/// `~/.local/state/baton/apps/<appID>.log`), appended to, mode 0600, in a folder of mode 0700.
///
/// The log is bounded at each launch: a log of `sizeLimit` bytes or more is moved to
/// `<appID>.log.1` (replacing the one before) and a new one begun, so at most one previous log
/// is kept. (The bound is checked when the app is started: a single run writes past it if it
/// says that much.)
///
/// The app id names the file, so it must be one: 1–249 bytes (room for `.log.1`), no `/`, no
/// NUL, not starting with `.` — a reverse-DNS id always is.
///
/// Each launch keeps the file open (`Opened`) and remembers where its own output begins, so
/// `lastLines(of:)` reads what the app wrote in this launch even if another launch of the same
/// app has since moved the file aside.
public struct LaunchedAppLog: Sendable {
    /// The folder of the logs, `baton/apps` under the state directory.
    public let directory: URL

    /// Past this size, a log is moved aside when the app is next launched: 1 MiB.
    public static let sizeLimit: off_t = 1 << 20
    /// How many of the last lines of a launch's output `lastLines(of:)` gives.
    public static let tailLineCount = 4
    /// How many of the last bytes of a launch's output `lastLines(of:)` reads at most.
    public static let tailByteCount = 1024

    /// The logs under the state directory `environment` names: `$XDG_STATE_HOME` if it is an
    /// absolute path, else `$HOME/.local/state` (by default this process's environment).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let state: URL
        if let home = environment["XDG_STATE_HOME"], home.hasPrefix("/") {
            state = URL(fileURLWithPath: home)
        } else {
            let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
            state = URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        }
        directory = state.appendingPathComponent("baton/apps")
    }

    /// The logs in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// The log file of `appID` (whether or not it exists); nil if `appID` cannot name a file.
    public func file(of appID: String) -> URL? {
        Self.canName(appID) ? directory.appendingPathComponent("\(appID).log") : nil
    }

    /// Whether `appID` can name a log file: 1–249 bytes, no `/` or NUL, not starting with `.`.
    public static func canName(_ appID: String) -> Bool {
        !appID.isEmpty && appID.utf8.count <= 249 && !appID.hasPrefix(".") && !appID.utf8.contains(UInt8(ascii: "/"))
            && !appID.utf8.contains(0)
    }

    /// A log opened for one launch: the descriptor the app's output goes to (read and append),
    /// closed when this is freed, and the offset where this launch's output begins.
    final class Opened: Sendable {
        let descriptor: Int32
        let start: off_t

        init(descriptor: Int32, start: off_t) {
            self.descriptor = descriptor
            self.start = start
        }

        deinit { _ = Glibc.close(descriptor) }
    }

    /// Opens `appID`'s log for a launch, moving a log past `sizeLimit` aside first. Throws a
    /// `CocoaError` naming the file when the folder or file cannot be made.
    func open(for appID: String) throws -> Opened {
        guard let file = file(of: appID) else {
            throw CocoaError(.fileWriteInvalidFileName, userInfo: [NSLocalizedDescriptionKey: "the app id \(PrintableText.escaped(appID)) cannot name a log file"])
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var status = stat()
        if lstat(file.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size >= Self.sizeLimit {
            _ = rename(file.path, file.path + ".1")
        }
        let fd = Glibc.open(file.path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "cannot open the log \(file.path): \(reason)"])
        }
        _ = fchmod(fd, 0o600)
        guard fstat(fd, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            _ = Glibc.close(fd)
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSLocalizedDescriptionKey: "the log \(file.path) is not a plain file"])
        }
        return Opened(descriptor: fd, start: status.st_size)
    }

    /// The last lines (at most `tailLineCount`, from at most the last `tailByteCount` bytes)
    /// that were written to `log` since it was opened, each escaped for printing
    /// (`PrintableText.escaped`); empty lines are left out.
    static func lastLines(of log: Opened) -> [String] {
        var status = stat()
        guard fstat(log.descriptor, &status) == 0, status.st_size > log.start else { return [] }
        let from = max(log.start, status.st_size - off_t(tailByteCount))
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size - from))
        let count = bytes.withUnsafeMutableBytes { pread(log.descriptor, $0.baseAddress, $0.count, from) }
        guard count > 0 else { return [] }
        var lines = bytes[..<count].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        // Read from the middle of a line: its start is not there.
        if from > log.start, !lines.isEmpty { lines.removeFirst() }
        return lines.map { PrintableText.escaped(String(decoding: $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0, as: UTF8.self)) }
            .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .suffix(tailLineCount)
    }
}
