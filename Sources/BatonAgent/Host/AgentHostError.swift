import Baton
import Foundation

/// Why the agent's runtime directory, lock or socket could not be set up, or the agent could
/// not be started or reached. Each case names the path or value at fault; the description
/// says what is wrong in words.
public enum AgentHostError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path exists but is not a directory owned by this user with mode 0700 (`problem`
    /// says which): another user could reach or replace the agent's socket.
    case unsafeDirectory(path: String, problem: String)
    /// Another agent holds the lock for this user; `pid` is the one it wrote, if readable.
    case alreadyRunning(lock: String, pid: Int32?)
    /// A system call on `path` failed; `reason` is the system's.
    case system(path: String, call: String, reason: String)
    /// `LISTEN_FDS` named a descriptor that is not a listening Unix stream socket.
    case notAListeningSocket(fd: Int32, problem: String)
    /// The agent executable could not be found or started (autostart).
    case cannotStart(program: String, reason: String)
    /// The started agent did not say it was ready within the bound.
    case notReady(program: String, within: Duration)

    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .unsafeDirectory(let path, let problem): "refusing \(shown(path)): \(problem)"
        case .alreadyRunning(let lock, let pid):
            "a Baton agent is already running for this user (\(pid.map { "pid \($0), " } ?? "")lock \(shown(lock)))"
        case .system(let path, let call, let reason): "\(call) \(shown(path)): \(reason)"
        case .notAListeningSocket(let fd, let problem): "descriptor \(fd) from LISTEN_FDS is not a listening Unix stream socket: \(problem)"
        case .cannotStart(let program, let reason): "cannot start \(shown(program)): \(reason)"
        case .notReady(let program, let within): "\(shown(program)) did not become ready within \(within)"
        }
    }

    static func system(_ path: String, _ call: String, errno code: Int32 = errno) -> AgentHostError {
        .system(path: path, call: call, reason: String(cString: strerror(code)))
    }
}
