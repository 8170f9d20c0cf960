import Glibc

/// How a process the launcher started ended: what `AppLaunching` reports so that a continuation
/// waiting for the app to join fails at once, not when its bound passes.
public struct LaunchedAppExit: Sendable, Equatable, CustomStringConvertible {
    /// How the process ended.
    public enum Status: Sendable, Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case killed(signal: Int32)
    }

    /// The app's id.
    public let appID: String
    /// The process that ended.
    public let processID: pid_t
    /// How it ended.
    public let status: Status
    /// The last lines it wrote in this launch (`LaunchedAppLog.lastLines`), escaped for printing.
    public let lastLines: [String]

    /// An exit of `appID`'s process `processID`.
    public init(appID: String, processID: pid_t, status: Status, lastLines: [String] = []) {
        self.appID = appID
        self.processID = processID
        self.status = status
        self.lastLines = lastLines
    }

    /// The status from a `waitpid` wait status.
    static func status(waitStatus: Int32) -> Status {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import.
        let signal = waitStatus & 0x7F
        return signal == 0 ? .exited((waitStatus >> 8) & 0xFF) : .killed(signal: signal)
    }

    /// "exited with status 2" or "was killed by signal 9 (Killed)".
    public var statusDescription: String {
        switch status {
        case .exited(let code): "exited with status \(code)"
        case .killed(let signal): "was killed by signal \(signal)" + (strsignal(signal).map { " (\(String(cString: $0)))" } ?? "")
        }
    }

    /// "com.example.reader exited with status 2: usage: … / …": the app id, how it ended, and
    /// its last lines, if any.
    public var description: String {
        "\(appID) \(statusDescription)" + (lastLines.isEmpty ? "" : ": " + lastLines.joined(separator: " / "))
    }
}
