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
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return try runProcess(directory.appendingPathComponent(name), arguments, environment: environment, timeout: timeout)
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
