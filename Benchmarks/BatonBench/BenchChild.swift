import BatonLoop
import Foundation

/// A process the agent benchmarks start (batond, a bench-mode app, an embedded node): its
/// standard output read line by line on the GLib loop, its standard error kept in a log file,
/// and `stop()` ends it (SIGTERM, then SIGKILL past a deadline) and waits for it.
@MainActor
final class BenchChild {
    let name: String
    let process = Process()
    private let input = Pipe(), output = Pipe()
    private let exited = DispatchSemaphore(value: 0)
    private let logURL: URL
    /// Every complete line the process has printed so far.
    private(set) var lines: [String] = []
    private var partial = Data()
    private var reader: LoopSource?
    private var stopped = false

    var pid: Int32 { process.processIdentifier }

    /// Starts `executable` with `arguments` and `environment`; its standard error goes to
    /// `logDirectory/name.log`.
    init(_ name: String, executable: URL, _ arguments: [String], environment: [String: String], logDirectory: URL) throws {
        self.name = name
        logURL = logDirectory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: logURL)
        let exited = self.exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let fd = output.fileHandleForReading.fileDescriptor
        reader = MainLoop.whenReadable(fd) { [weak self] in
            guard let self else { return .stop }
            return self.readAvailable(fd)
        }
    }

    private func readAvailable(_ fd: Int32) -> Repetition {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else {
            reader = nil
            return .stop
        }
        partial.append(contentsOf: buffer[..<count])
        while let newline = partial.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
            partial.removeSubrange(partial.startIndex...newline)
        }
        return .again
    }

    /// Runs the loop until the process prints a line starting with `prefix` (the first such
    /// line at or after index `from` of `lines`); throws past `timeout` or if the process ends.
    @discardableResult
    func waitForLine(_ prefix: String, from: Int = 0, timeout: Duration = .seconds(60)) throws -> String {
        func found() -> String? { lines.indices.first { $0 >= from && lines[$0].hasPrefix(prefix) }.map { lines[$0] } }
        MainLoop.run(until: { found() != nil || reader == nil }, timeout: timeout)
        guard let line = found() else {
            throw BenchFailure("\(name) printed no \"\(prefix)\" line within \(timeout)\(reader == nil ? " (it ended)" : "")\(logTail())")
        }
        return line
    }

    /// Writes `line` and a newline to the process's standard input.
    func send(_ line: String) { try? input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8)) }

    /// How long `stop()` waits for the process to end after SIGTERM, and again after SIGKILL.
    static let stopDeadline: TimeInterval = 5

    /// Ends the process: closes its input, sends SIGTERM and waits up to `stopDeadline`, then
    /// SIGKILL and waits up to `stopDeadline` again. A process not reaped even then (one stuck
    /// in the kernel, or an `nsenter` whose end was never reported) is left, said on standard
    /// error, so the bench goes on. Again on a stopped process, does nothing.
    func stop() {
        guard !stopped else { return }
        stopped = true
        reader?.cancel()
        reader = nil
        try? input.fileHandleForWriting.close()
        if process.isRunning { kill(pid, SIGTERM) }
        guard exited.wait(timeout: .now() + Self.stopDeadline) == .timedOut else { return }
        kill(pid, SIGKILL)
        if exited.wait(timeout: .now() + Self.stopDeadline) == .timedOut {
            FileHandle.standardError.write(Data("bench: \(name) (pid \(pid)) did not end within \(Self.stopDeadline) s of SIGKILL; left behind\n".utf8))
        }
    }

    /// The last lines of the process's standard error, for a failure's message.
    func logTail() -> String {
        guard let text = try? String(contentsOf: logURL, encoding: .utf8), !text.isEmpty else { return "" }
        return "\n  \(name)'s log ends: " + text.split(separator: "\n").suffix(5).joined(separator: "\n    ")
    }

    /// CPU time each thread of the process has used, in nanoseconds, by thread ID
    /// (`/proc/PID/task/TID/schedstat`: nanosecond resolution).
    func threadCPUNanoseconds() -> [String: Double] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var times: [String: Double] = [:]
        for task in tasks {
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
            if let nanoseconds = Double(text.split(separator: " ").first ?? "") { times[task] = nanoseconds }
        }
        return times
    }

    /// Milliseconds of CPU the process used since `before` (from `threadCPUNanoseconds()`):
    /// what each thread alive now used since then (all of it for a thread started since). A
    /// thread that ended meanwhile is not counted: GLib's pool threads end after idling, so
    /// they did next to nothing in the window, while counting their whole past would not be
    /// this window's.
    func cpuMilliseconds(since before: [String: Double]) -> Double {
        threadCPUNanoseconds().reduce(0) { sum, thread in sum + thread.value - (before[thread.key] ?? 0) } / 1_000_000
    }

    /// CPU time the process has used, in milliseconds, from `/proc/PID/stat` (utime + stime,
    /// in clock ticks: 10 ms resolution at 100 Hz).
    func statCPUMilliseconds() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return .nan }
        // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return .nan }
        return (utime + stime) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Resident memory now (`VmRSS` of `/proc/PID/status`), in bytes.
    func residentBytes() -> Double { kibField("VmRSS:", of: "status") * 1024 }

    /// The process's private dirty memory (`Private_Dirty` of /proc/PID/smaps_rollup): its heap,
    /// stacks and written data, which no other process shares. Most of its resident size is
    /// code of shared libraries (Swift's runtime, Foundation, GLib), shared with every Swift app.
    func privateDirtyBytes() -> Double { kibField("Private_Dirty:", of: "smaps_rollup") * 1024 }

    /// The number of kB on the line starting with `field` in /proc/PID/`file` (NaN if none).
    private func kibField(_ field: String, of file: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/\(file)", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field) }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return .nan }
        return kib
    }
}

/// Why an agent benchmark could not measure.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The monotonic clock (`CLOCK_MONOTONIC`) in nanoseconds: one clock for every process of the
/// machine, so a time printed by one process compares with a time taken in another.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
