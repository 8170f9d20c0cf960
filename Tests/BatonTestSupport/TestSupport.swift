import Foundation

/// A Bool shared between threads.
public final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    public init() {}
    public func set(_ value: Bool) { lock.lock(); stored = value; lock.unlock() }
    public var value: Bool { lock.lock(); defer { lock.unlock() }; return stored }
}

/// Runs an executable built beside the test bundle; kills it after `timeout` so a hung child
/// fails the test instead of hanging the suite.
public func runProduct(_ name: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                       timeout: TimeInterval = 60) throws -> (status: Int32, stdout: String, stderr: String) {
    try runProcess(productURL(name), arguments, environment: environment, timeout: timeout)
}

/// An executable built beside the test bundle.
public func productURL(_ name: String) -> URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
}

/// Runs `executable`, killing it after `timeout`; returns its status and output.
public func runProcess(_ executable: URL, _ arguments: [String] = [], environment: [String: String]? = nil,
                       timeout: TimeInterval = 60) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let deadline = DispatchWorkItem { if process.isRunning { process.terminate() } }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    defer { deadline.cancel() }
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

/// A child process whose output (stdout and stderr together) a test can wait on line by line:
/// readiness and progress are events the test sees, never guessed with sleeps.
public final class RunningProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let condition = NSCondition()
    private var buffer = ""
    private var finished = false

    /// Starts the product `name`, built beside the test bundle.
    public convenience init(product name: String, _ arguments: [String], environment: [String: String]? = nil) throws {
        try self.init(executable: productURL(name), arguments, environment: environment)
    }

    /// Starts `executable`.
    public init(executable: URL, _ arguments: [String], environment: [String: String]? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new } }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = input
        try process.run()
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = reader.availableData
                condition.lock()
                if chunk.isEmpty { finished = true } else { buffer += String(decoding: chunk, as: UTF8.self) }
                condition.broadcast()
                condition.unlock()
                if chunk.isEmpty { return }
            }
        }
    }

    /// Everything the process has written so far.
    public var output: String {
        condition.lock(); defer { condition.unlock() }
        return buffer
    }

    public var processIdentifier: Int32 { process.processIdentifier }

    /// The `occurrence`th line containing `text`, once written; nil if the output ends or
    /// `timeout` passes first.
    public func waitForLine(containing text: String, occurrence: Int = 1, timeout: TimeInterval = 30) -> String? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock(); defer { condition.unlock() }
        while true {
            let lines = buffer.split(separator: "\n").filter { $0.contains(text) }
            if lines.count >= occurrence { return String(lines[occurrence - 1]) }
            if finished || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Waits for the process to exit; terminates it after `timeout`. Returns its status.
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 30) -> Int32 {
        let deadline = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
        process.waitUntilExit()
        deadline.cancel()
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
        return process.terminationStatus
    }

    public func terminate() { if process.isRunning { process.terminate() } }

    /// Writes `line` and a newline to the process's standard input.
    public func send(_ line: String) { input.fileHandleForWriting.write(Data((line + "\n").utf8)) }

    deinit { terminate() }
}
