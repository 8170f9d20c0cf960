import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Bool shared between threads.
public final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    /// A flag that is false.
    public init() {}
    /// Sets the flag.
    public func set(_ value: Bool) { lock.lock(); stored = value; lock.unlock() }
    /// The flag's value.
    public var value: Bool { lock.lock(); defer { lock.unlock() }; return stored }
}

/// How long a child that was asked to stop (SIGTERM) has before it is killed (SIGKILL).
public let childStopGrace: TimeInterval = 5

/// Runs an executable built beside the test bundle; ends it after `timeout` so a hung child
/// fails the test instead of hanging the suite.
public func runProduct(_ name: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                       timeout: TimeInterval = 60) throws -> (status: Int32, stdout: String, stderr: String) {
    try runProcess(productURL(name), arguments, environment: environment, timeout: timeout)
}

/// An executable built beside the test bundle.
public func productURL(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
}

/// Runs `executable` (a `ChildProcess`, standard input /dev/null) and returns its status and
/// output. Its standard output and error are read at the same time, each on its own thread, so
/// a child writing much to either never blocks. After `timeout` it gets SIGTERM, and SIGKILL
/// `childStopGrace` later (its status then says the signal); the whole call is bounded.
public func runProcess(_ executable: URL, _ arguments: [String] = [], environment: [String: String]? = nil,
                       timeout: TimeInterval = 60) throws -> (status: Int32, stdout: String, stderr: String) {
    let out = try makePipe(), err = try makePipe()
    let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
    defer { close(input) }
    let child: ChildProcess
    do {
        defer { close(out.write); close(err.write) }
        child = try ChildProcess(executable: executable.path, arguments, environment: environment,
                                 standardInput: input, standardOutput: out.write, standardError: err.write)
    } catch {
        close(out.read); close(err.read)
        throw error
    }
    let stdout = OutputReader(out.read), stderr = OutputReader(err.read)
    if !child.wait(until: Date(timeIntervalSinceNow: timeout)) { child.end(grace: childStopGrace) }
    // What the child started may hold the pipes after it exits: its group is ended too.
    let drained = Date(timeIntervalSinceNow: childStopGrace)
    if !(stdout.waitForEnd(until: drained) && stderr.waitForEnd(until: drained)) { child.signalGroup(SIGKILL) }
    return (child.terminationStatus ?? -1, stdout.text, stderr.text)
}

/// A child process whose output (stdout and stderr together) a test can wait on line by line:
/// readiness and progress are events the test sees, never guessed with sleeps. It is a
/// `ChildProcess`: it ends with the test that started it, or when it is released.
public final class RunningProcess: @unchecked Sendable {
    private let child: ChildProcess
    private let reader: OutputReader
    private let diagnostics: OutputReader
    private let input: Int32

    /// Starts the product `name`, built beside the test bundle (`terminal`: see `init(executable:…)`).
    public convenience init(product name: String, _ arguments: [String], environment: [String: String]? = nil,
                            terminal: Bool = false) throws {
        try self.init(executable: productURL(name), arguments, environment: environment, terminal: terminal)
    }

    /// Starts `executable`; with `terminal`, its standard input is a pseudo-terminal (as a
    /// person's at a keyboard, lines kept in the terminal until read), else a pipe.
    ///
    /// The process gets a pipe as its descriptor 3, named by `BATON_DIAGNOSTICS_FD` (and its
    /// inode by `BATON_DIAGNOSTICS_INODE`, so a program it starts never takes another file), on which
    /// Baton writes its typed diagnostics (JSON lines): `waitForEvent(_:timeout:where:)`.
    public init(executable: URL, _ arguments: [String], environment: [String: String]? = nil, terminal: Bool = false) throws {
        let output = try makePipe(), stdin = terminal ? try makeTerminal() : try makePipe()
        let events = try makePipe()
        var pipeStatus = stat()
        fstat(events.write, &pipeStatus)
        let merged = ["BATON_DIAGNOSTICS_FD": "3", "BATON_DIAGNOSTICS_INODE": "\(pipeStatus.st_ino)"]
            .merging(environment ?? [:]) { _, given in given }
        do {
            defer { close(output.write); close(stdin.read); close(events.write) }
            child = try ChildProcess(executable: executable.path, arguments, environment: merged,
                                     standardInput: stdin.read, standardOutput: output.write, standardError: output.write,
                                     more: [events.write])
        } catch {
            close(output.read); close(stdin.write); close(events.read)
            throw error
        }
        input = stdin.write
        reader = OutputReader(output.read)
        diagnostics = OutputReader(events.read)
    }

    /// The `occurrence`th diagnostic event of type `Event` that `matches`, once the process
    /// has published it (a line of its `BATON_DIAGNOSTICS_FD`, decoded); nil if the process
    /// ends or `timeout` passes first. Lines that do not decode as `Event` are passed over.
    public func waitForEvent<Event: Decodable>(_ type: Event.Type, occurrence: Int = 1, timeout: TimeInterval = 30,
                                               where matches: (Event) -> Bool = { _ in true }) -> Event? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        let decoder = JSONDecoder()
        diagnostics.condition.lock(); defer { diagnostics.condition.unlock() }
        while true {
            let found = diagnostics.textLocked.split(separator: "\n")
                .compactMap { try? decoder.decode(Event.self, from: Data($0.utf8)) }
                .filter(matches)
            if found.count >= occurrence { return found[occurrence - 1] }
            if diagnostics.ended || !diagnostics.condition.wait(until: deadline) { return nil }
        }
    }

    /// Every diagnostic event of type `Event` the process has published so far.
    public func events<Event: Decodable>(_ type: Event.Type) -> [Event] {
        let decoder = JSONDecoder()
        return diagnostics.text.split(separator: "\n").compactMap { try? decoder.decode(Event.self, from: Data($0.utf8)) }
    }

    /// Everything the process has written so far.
    public var output: String { reader.text }

    /// The process's id.
    public var processIdentifier: Int32 { child.pid }

    /// Whether the process has not been reaped yet.
    public var isRunning: Bool { child.isRunning }

    /// The `occurrence`th line containing `text`, once written; nil if the output ends or
    /// `timeout` passes first.
    public func waitForLine(containing text: String, occurrence: Int = 1, timeout: TimeInterval = 30) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        reader.condition.lock(); defer { reader.condition.unlock() }
        while true {
            let lines = reader.textLocked.split(separator: "\n").filter { $0.contains(text) }
            if lines.count >= occurrence { return String(lines[occurrence - 1]) }
            if reader.ended || !reader.condition.wait(until: deadline) { return nil }
        }
    }

    /// Waits for the process to exit and its output to end. After `timeout` it gets SIGTERM,
    /// and SIGKILL `childStopGrace` later; the wait is bounded in all. Returns its status (the
    /// signal's number if a signal ended it; -1 if even SIGKILL did not end it in time).
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 30) -> Int32 {
        if !child.wait(until: Date(timeIntervalSinceNow: timeout)) { child.end(grace: childStopGrace) }
        if !reader.waitForEnd(until: Date(timeIntervalSinceNow: childStopGrace)) {
            child.signalGroup(SIGKILL)  // what it started still holds the output
            reader.waitForEnd(until: Date(timeIntervalSinceNow: childStopGrace))
        }
        return child.terminationStatus ?? -1
    }

    /// Asks the process (and its process group) to stop: SIGTERM. `waitForExit` then bounds it.
    public func terminate() { if child.isRunning { child.signalGroup(SIGTERM) } }

    /// Writes `line` and a newline to the process's standard input (nothing if it has gone).
    public func send(_ line: String) {
        var bytes = Array((line + "\n").utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    deinit {
        child.end(grace: childStopGrace)
        close(input)
    }
}

/// A pseudo-terminal as a pipe: `write` is its controller side, `read` the terminal a child
/// reads (canonical mode, echo off, so nothing piles up unread on the controller).
private func makeTerminal() throws -> (read: Int32, write: Int32) {
    let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    var unlock: Int32 = 0, number: UInt32 = 0
    // TIOCSPTLCK (_IOW('T', 0x31, int)) and TIOCGPTN (_IOR('T', 0x30, unsigned int)): Linux's unlockpt and ptsname.
    guard controller >= 0, ioctl(controller, 0x4004_5431, &unlock) == 0, ioctl(controller, 0x8004_5430, &number) == 0 else {
        if controller >= 0 { close(controller) }
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    let name = "/dev/pts/\(number)"
    let terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)
    guard terminal >= 0 else {
        close(controller)
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    var settings = termios()
    if tcgetattr(terminal, &settings) == 0 {
        settings.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(terminal, TCSANOW, &settings)
    }
    return (terminal, controller)
}
