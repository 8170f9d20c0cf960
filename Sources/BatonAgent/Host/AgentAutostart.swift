import BatonLoop
import CGLib
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starting the agent on demand where no systemd user instance does it (as gpg-agent is
/// started by the first tool that needs it).
///
/// An app that finds no agent at the socket calls `start`: it runs `batond
/// --ready-fd 3` in a session of its own (so a terminal closing or the app's process group
/// being killed leaves it running), with stdin and stdout on /dev/null and stderr appended to
/// `agent.socket.log` beside the socket, and waits — on the loop, at most `timeout` — for the
/// one byte batond writes on that descriptor once it listens. Two apps starting it at once
/// is harmless: the agent lock lets one agent run, and the other batond exits with
/// `alreadyRunningStatus`, which counts as success here (the caller then connects to the
/// winner, retrying as it does after any refused connection).
///
/// The agent program is `$BATOND` if set, else the installed `batond` (the first on `PATH`),
/// else `batond` beside the running executable (see `program(environment:)`). Variables that belong to one launch (`LISTEN_*`,
/// `BATON_CONTINUE_ACTIVITY_TYPE`, activation tokens) are not passed on.
@MainActor
public enum AgentAutostart {
    /// The exit status of a batond that found another agent running for this user.
    nonisolated public static let alreadyRunningStatus: Int32 = 3
    /// What batond writes on its ready descriptor once it listens.
    nonisolated public static let readyByte: UInt8 = 0x2E  // "."

    /// The program `start` runs, and why that one (`baton status` shows both). One agent
    /// program per user, whichever app starts it: `$BATOND` if set; else the installed
    /// `batond`, the first on `PATH`; else, where none is installed, the `batond` beside the
    /// running executable (a build folder). So an app run from a build folder never starts
    /// its own `batond` beside an installed one.
    public static func program(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        choice(environment: environment).program
    }

    /// Which program `start` runs, and the reason in words.
    public static func choice(environment: [String: String] = ProcessInfo.processInfo.environment) -> (program: String, reason: String) {
        if let explicit = environment["BATOND"], !explicit.isEmpty { return (explicit, "$BATOND") }
        for folder in (environment["PATH"] ?? "").split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/batond"
            if access(candidate, X_OK) == 0 { return (candidate, "installed: the first batond on PATH") }
        }
        let beside = URL(fileURLWithPath: CommandLine.arguments.first.flatMap(resolvedExecutable) ?? "")
            .deletingLastPathComponent().appendingPathComponent("batond").path
        if access(beside, X_OK) == 0 { return (beside, "none on PATH: the one beside this program") }
        return ("batond", "none found: batond on PATH when started")
    }

    private static func resolvedExecutable(_ argument: String) -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? argument
    }

    /// Starts the agent and returns once it listens (or another one already ran).
    public static func start(in directory: AgentRuntimeDirectory, program: String = program(),
                             extraArguments: [String] = [], timeout: Duration = .seconds(10)) async throws(AgentHostError) {
        try directory.prepare()
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .system(directory.url.path, "pipe", errno: errno) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let readEnd = ends[0]
        defer { close(readEnd) }
        let process: OpaquePointer
        do {
            process = try spawn(program, arguments: ["--socket", directory.socketPath] + extraArguments, readyFD: ends[1],
                                log: directory.logPath)
        } catch {
            throw error
        }
        defer { g_object_unref(UnsafeMutableRawPointer(process)) }
        let outcome = await waitForReadyByte(readEnd, timeout: timeout)
        switch outcome {
        case .ready: return
        case .timedOut: throw .notReady(program: program, within: timeout)
        case .closed:
            // It exited (or closed the descriptor) without becoming ready: why?
            let status = await exitStatus(of: process)
            if status == alreadyRunningStatus { return }
            throw .cannotStart(program: program, reason: "it exited with status \(status.map(String.init) ?? "unknown") before listening; see \(directory.logPath)")
        }
    }

    private static func spawn(_ program: String, arguments: [String], readyFD: Int32, log: String) throws(AgentHostError) -> OpaquePointer {
        let launcher = g_subprocess_launcher_new(GSubprocessFlags(rawValue: G_SUBPROCESS_FLAGS_STDOUT_SILENCE.rawValue))!
        defer { g_object_unref(UnsafeMutableRawPointer(launcher)) }
        g_subprocess_launcher_set_stderr_file_path(launcher, log)
        g_subprocess_launcher_set_cwd(launcher, "/")
        for variable in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "BATON_CONTINUE_ACTIVITY_TYPE",
                         "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID", "GIO_LAUNCHED_DESKTOP_FILE", "GIO_LAUNCHED_DESKTOP_FILE_PID"] {
            g_subprocess_launcher_unsetenv(launcher, variable)
        }
        g_subprocess_launcher_take_fd(launcher, readyFD, 3)
        g_subprocess_launcher_set_child_setup(launcher, { _ in _ = setsid() }, nil, nil)
        let argv = [program, "--ready-fd", "3"] + arguments
        var cStrings = argv.map { strdup($0) } + [nil]
        defer { for pointer in cStrings { free(pointer) } }
        var error: UnsafeMutablePointer<GError>?
        let process = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<gchar>?.self, capacity: buffer.count) {
                g_subprocess_launcher_spawnv(launcher, $0, &error)
            }
        }
        guard let process else { throw .cannotStart(program: program, reason: GLibError(consuming: error!).description) }
        return process
    }

    private enum ReadyOutcome { case ready, closed, timedOut }

    /// The first byte on `fd`, or its end, or the deadline: whichever comes first, on the loop.
    private static func waitForReadyByte(_ fd: Int32, timeout: Duration) async -> ReadyOutcome {
        await withLoopContinuation { (resume: CheckedContinuation<ReadyOutcome, Never>) in
            var finished = false
            var watch: LoopSource?
            var deadline: LoopSource?
            func finish(_ outcome: ReadyOutcome) {
                guard !finished else { return }
                finished = true
                watch?.cancel()
                deadline?.cancel()
                resume.resume(returning: outcome)
            }
            deadline = MainLoop.after(timeout) { finish(.timedOut) }
            watch = MainLoop.whenReadable(fd) {
                var byte: UInt8 = 0
                let count = read(fd, &byte, 1)
                if count < 0, errno == EINTR || errno == EAGAIN { return .again }
                finish(count == 1 && byte == readyByte ? .ready : .closed)
                return .stop
            }
        }
    }

    /// The exit status of `process` once it has exited (it already closed its ready descriptor).
    private static func exitStatus(of process: OpaquePointer) async -> Int32? {
        let subprocess = SendableProcess(pointer: process)
        let exited = try? await GIOAsync.call { cancellable, callback, userData in
            g_subprocess_wait_async(subprocess.gPointer, cancellable, callback, userData)
        } finish: { result, error in
            g_subprocess_wait_finish(subprocess.gPointer, result, error) != 0 ? true : nil
        }
        guard exited == true, g_subprocess_get_if_exited(subprocess.gPointer) != 0 else { return nil }
        return g_subprocess_get_exit_status(subprocess.gPointer)
    }
}

private struct SendableProcess: @unchecked Sendable {
    let pointer: OpaquePointer
    var gPointer: OpaquePointer { pointer }
}
