import Baton
import Foundation

// An app the tests start through its desktop entry (DesktopAppLauncher): it writes to the file
// named by its first argument (a FIFO the test reads) what it was launched with — its launch
// options, the launcher's variables still in its environment, and whether a process it starts
// inherits BATON_CONTINUE_ACTIVITY_TYPE — then quits. It never outlives a minute (SIGALRM).

alarm(60)
let reportPath = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "/dev/stdout"

/// Whether a process this app starts sees the variable: `printenv NAME` exits 0 only if set.
func childSees(_ name: String) -> Bool {
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/usr/bin/printenv"), strdup(name), nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawn(&pid, "/usr/bin/printenv", nil, nil, argv, environ) == 0 else { return false }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status == 0
}

@MainActor
final class Probe: ApplicationDelegate {
    var lines: [String] = []

    func application(_ application: Application, willFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]?) -> Bool {
        lines.append("will userActivityType=\(options?[.userActivityType] as? String ?? "none")")
        return true
    }

    func application(_ application: Application, didFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]?) -> Bool {
        lines.append("did userActivityType=\(options?[.userActivityType] as? String ?? "none")")
        return true
    }

    func applicationDidBecomeActive(_ notification: Notification) {
        for name in ["BATON_CONTINUE_ACTIVITY_TYPE", "XDG_ACTIVATION_TOKEN", "DESKTOP_STARTUP_ID",
                     "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"] {
            lines.append("env \(name)=\(ProcessInfo.processInfo.environment[name] ?? "unset")")
        }
        lines.append("child sees BATON_CONTINUE_ACTIVITY_TYPE: \(childSees("BATON_CONTINUE_ACTIVITY_TYPE"))")
        lines.append("pid \(getpid())")
        let report = (lines + ["end", ""]).joined(separator: "\n")
        if let handle = FileHandle(forWritingAtPath: reportPath) {
            handle.write(Data(report.utf8))
            try? handle.close()
        }
        Application.shared.terminate(nil)
    }
}

Application.main(delegate: Probe())
