import BatonAgent
import BatonContinuity
import Foundation

/// The bench-mode app of the agent figures: an app joined to the agent at a socket.
///
///     BatonBench --agent-app-mode SOCKET APP-ID TYPE[,TYPE…]|- [--advertise] [--exit-after-restore]
///
/// It declares the activity types `TYPE…` (team `BENCH`; `-`: the one it was launched to
/// continue) and prints, on its standard output, `launched NS` from
/// `applicationDidFinishLaunching`, `joined` each time it has joined the agent, and
/// `restored NS TYPE` from `restoreUserActivityState` (NS: `CLOCK_MONOTONIC` in nanoseconds,
/// comparable across processes); with `BATON_BENCH_EXIT_AFTER_LAUNCH=1` it ends right after
/// `launched`. With `--advertise` it is active and its current activity is of the first type
/// (with continuation streams, answered by `StreamServer`); a line `retype T` on its input
/// makes an activity of type T current. With `--exit-after-restore` (an app the agent launches)
/// it ends a second after restoring (time for its `Continued` to reach the originating app);
/// otherwise end of input ends it.
@MainActor
enum AgentAppMode {
    static let team = "BENCH"

    final class Delegate: ApplicationDelegate, UserActivityRestoring {
        let exitAfterRestore: Bool
        init(exitAfterRestore: Bool) { self.exitAfterRestore = exitAfterRestore }

        func applicationDidFinishLaunching(_ notification: Notification) {
            say("launched \(monotonicNanoseconds())")
            if ProcessInfo.processInfo.environment[AgentMode.exitAfterLaunchVariable] == "1" { exit(0) }
        }

        func application(_ application: Application, continue userActivity: UserActivity,
                         restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
            restorationHandler([self])
            return true
        }

        func restoreUserActivityState(_ userActivity: UserActivity) {
            say("restored \(monotonicNanoseconds()) \(userActivity.activityType)")
            if exitAfterRestore { MainLoop.after(.seconds(1)) { exit(0) } }
        }

        func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
            say("failed \(userActivityType): \(error)")
        }
    }

    static func run(_ arguments: [String]) -> Never {
        guard arguments.count >= 3 else {
            say("usage: BatonBench --agent-app-mode SOCKET APP-ID TYPE[,TYPE…]|- [--advertise] [--exit-after-restore]")
            exit(2)
        }
        let (socket, appID) = (arguments[0], arguments[1])
        // `-`: the type the app was launched to continue (its launch environment), so an app
        // the agent launched in an earlier round, still ending, does not take the next round's.
        let launchedFor = ProcessInfo.processInfo.environment[LaunchEnvironment.continueActivityTypeVariable]
        let types = arguments[2] == "-" ? launchedFor.map { [$0] } ?? [] : arguments[2].split(separator: ",").map(String.init)
        Application.shared.manifest = AppManifest(appID: appID, teamIdentifier: team, activityTypes: types)
        let exitAfterRestore = arguments.contains("--exit-after-restore")
        let delegate = Delegate(exitAfterRestore: exitAfterRestore)
        Application.shared.delegate = delegate
        Application.shared.finishLaunching()
        var current: UserActivity?
        let streamServer = StreamServer()
        func makeCurrent(_ type: String) {
            let activity = UserActivity(activityType: type)
            activity.title = "Bench"
            activity.userInfo = ["page": 1, "text": String(repeating: "x", count: 200)]
            activity.supportsContinuationStreams = true  // as the embedded figures' PeerMode
            activity.delegate = streamServer
            activity.becomeCurrent()
            current = activity
        }
        if arguments.contains("--advertise") {
            Application.shared.activate()
            makeCurrent(types[0])
        }
        let connection = AgentConnection.join(socketPath: socket)
        connection.onJoined = { say("joined") }
        // An app the agent launched has no input to end it (GIO gives it /dev/null): it ends
        // after restoring, or when its agent ends it.
        let input = StandardInputLines(atEnd: { if !exitAfterRestore { exit(0) } }) { line in
            if line.hasPrefix("retype ") { makeCurrent(String(line.dropFirst("retype ".count))) }
        }
        withExtendedLifetime((connection, delegate, streamServer, input)) { MainLoop.run() }
        withExtendedLifetime(current) {}
        exit(0)
    }
}
