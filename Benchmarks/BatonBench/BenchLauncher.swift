import BatonAgent
import Foundation

/// The agent's `AppLaunching` in the benchmarks, standing in for the desktop launcher (not on
/// this branch): it starts this executable in `--agent-app-mode` as the app `appID`, declaring
/// `activityType`, with the agent's own environment, its output going to the agent's, and
/// ending after it has restored. Every app it started is ended by `stopAll()`.
@MainActor
final class BenchLauncher: AppLaunching {
    let socketPath: String
    private var launched: [(process: Process, input: Pipe)] = []

    init(socketPath: String) { self.socketPath = socketPath }

    func launch(appID: String, activityType: String, activationToken: String?) throws {
        launched.removeAll { !$0.process.isRunning }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--agent-app-mode", socketPath, appID, activityType, "--exit-after-restore"]
        let input = Pipe()  // closed when the agent ends, which ends the app
        process.standardInput = input
        try process.run()
        launched.append((process, input))
    }

    /// Ends every app still running that this launcher started, and waits for it.
    func stopAll() {
        for (process, input) in launched {
            try? input.fileHandleForWriting.close()
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        launched = []
    }
}
