import Foundation

/// The agent's systemd user units (`batond.socket`, `batond.service`), when the user's systemd
/// instance has them: `baton agent` then starts and stops the agent through them, so systemd
/// and the agent never disagree about whether it runs.
enum SystemdUserUnits {
    static let socket = "batond.socket"
    static let service = "batond.service"

    /// Whether a systemd user instance answers and knows `batond.socket` (installed by `make
    /// install` or the Debian package).
    static func available() -> Bool {
        guard let result = systemctl(["show", "--property=LoadState", "--value", socket]) else { return false }
        return result.status == 0 && result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "loaded"
    }

    /// Runs `systemctl --user ARGUMENTS`; nil when systemctl cannot be run at all.
    @discardableResult
    static func systemctl(_ arguments: [String]) -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["systemctl", "--user"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
