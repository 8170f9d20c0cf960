import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A process a test starts. Whatever happens to the test, the child ends with it:
///
/// - It runs under `setpriv --pdeathsig KILL`, started from one spawner thread that lives as
///   long as the test runner (`PR_SET_PDEATHSIG` fires when the *thread* that forked exits), so
///   if the runner dies — a crash, a kill, a timeout — the kernel kills the child.
/// - It leads a process group of its own, so ending it (`end`) ends what it started too.
/// - Every child still running when a test case finishes is ended then (`ChildRegistry`, with
///   BatonTestSupport's `TestChildren`), and none outlives the test bundle.
///
/// Every wait is bounded; a child that ignores SIGTERM gets SIGKILL.
public final class ChildProcess: @unchecked Sendable {
    /// The child's process id (the leader of its own process group).
    public let pid: pid_t
    private let condition = NSCondition()
    private var waitStatus: Int32?

    /// Starts `executable` with `arguments`; its standard input, output and error are the given
    /// descriptors, and `more` become its descriptors 3, 4… (the caller closes them all
    /// afterwards). Nothing else of the runner's is inherited.
    package init(executable: String, _ arguments: [String], environment: [String: String]?,
         standardInput: Int32, standardOutput: Int32, standardError: Int32, more: [Int32] = []) throws {
        let merged = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { _, new in new }
        let command = ["/usr/bin/setpriv", "--pdeathsig", "KILL", "--", executable] + arguments
        pid = try ChildSpawner.shared.spawn(command, environment: merged.map { "\($0.key)=\($0.value)" },
                                            descriptors: [standardInput, standardOutput, standardError] + more)
        ChildRegistry.shared.started(self)
        Thread.detachNewThread { [self] in reap() }
    }

    private func reap() {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        ChildRegistry.shared.ended(self)  // first: whoever sees the exit sees the registry without it
        condition.lock()
        waitStatus = status
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the child has not been reaped yet.
    public var isRunning: Bool {
        condition.lock(); defer { condition.unlock() }
        return waitStatus == nil
    }

    /// The exit status, or the number of the signal that ended it (as `Process` says it); nil
    /// while it runs.
    public var terminationStatus: Int32? {
        condition.lock(); defer { condition.unlock() }
        guard let status = waitStatus else { return nil }
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// Waits until the child has exited or `deadline` passes; returns whether it exited.
    @discardableResult
    public func wait(until deadline: Date) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while waitStatus == nil {
            if !condition.wait(until: deadline) { return waitStatus != nil }
        }
        return true
    }

    /// Sends `signal` to the child's process group (the child and what it started).
    public func signalGroup(_ signal: Int32) {
        condition.lock(); defer { condition.unlock() }
        // Once the child is reaped, its group lives on only while something it started runs
        // (and its id is not reused meanwhile); once empty, the id may lead another process's
        // group, so only a group with members in this runner's session is signalled.
        guard waitStatus == nil || Self.groupHasMembersInThisSession(pid) else { return }
        kill(-pid, signal)
    }

    /// Whether a process of this session belongs to process group `group` (from /proc).
    static func groupHasMembersInThisSession(_ group: pid_t) -> Bool {
        let session = getsid(0)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { entry in
            guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // After "pid (comm)": state ppid pgrp session …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 3 && Int32(fields[2]) == group && Int32(fields[3]) == session
        }
    }

    /// Ends the child and its process group: SIGTERM, then SIGKILL after `grace`. Returns once
    /// the child has been reaped (bounded: a child the kernel cannot kill is given up after 10 s).
    public func end(grace: TimeInterval = 3) {
        if isRunning {
            signalGroup(SIGTERM)
            wait(until: Date(timeIntervalSinceNow: grace))
        }
        signalGroup(SIGKILL)
        wait(until: Date(timeIntervalSinceNow: 10))
    }
}

/// The one thread children are started from. It never exits, so each child's parent-death
/// signal fires only when the test runner itself ends.
final class ChildSpawner: @unchecked Sendable {
    static let shared = ChildSpawner()

    private let condition = NSCondition()
    private var requests: [() -> Void] = []

    private init() {
        // A write to the pipe of a child that died must fail with EPIPE, not kill the runner.
        signal(SIGPIPE, SIG_IGN)
        let thread = Thread { [self] in serve() }
        thread.name = "test child spawner"
        thread.start()
    }

    private func serve() {
        while true {
            condition.lock()
            while requests.isEmpty { condition.wait() }
            let request = requests.removeFirst()
            condition.unlock()
            request()
        }
    }

    /// Starts `command` (an absolute path first) as the leader of a new process group, with
    /// `descriptors` as its 0, 1, 2, default signal dispositions and an empty signal mask.
    func spawn(_ command: [String], environment: [String], descriptors: [Int32]) throws -> pid_t {
        let done = NSCondition()
        var result: Result<pid_t, Error>?
        condition.lock()
        requests.append {
            let outcome = Result { try Self.posixSpawn(command, environment: environment, descriptors: descriptors) }
            done.lock()
            result = outcome
            done.signal()
            done.unlock()
        }
        condition.signal()
        condition.unlock()
        done.lock(); defer { done.unlock() }
        while result == nil { done.wait() }
        return try result!.get()
    }

    private static func posixSpawn(_ command: [String], environment: [String], descriptors: [Int32]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, source) in descriptors.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, source, Int32(target))
        }
        // Only those given: a descriptor of the runner's left open in a child would keep another
        // child's pipe from ending.
        if let closeFrom { _ = closeFrom(&actions, Int32(descriptors.count)) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), mask = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let error = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO) }
        return pid
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift does not import.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()
}
