import Baton
@testable import BatonAgent
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// Launching a real process from a desktop entry installed in the test's own XDG dirs, through
/// GIO, and what it sees: its launch options, the activation token, and none of the agent's
/// socket-activation variables. The app is `LaunchProbe`, which reports through a FIFO and quits.
final class DesktopAppLauncherTests: XCTestCase {
    private var xdg: XDGFixture!
    private var launched: [pid_t] = []
    private var savedEnvironment: [String: String?] = [:]

    override func setUpWithError() throws { xdg = try XDGFixture() }

    override func tearDown() {
        // The probe quits once it has reported; one that did not is ended here (GIO's spawn
        // starts it outside the test's own processes, so it is found by its pid and its command line).
        for pid in launched where (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.contains("LaunchProbe") == true {
            kill(pid, SIGKILL)
        }
        // The probe is the runner's child (the launcher's child watch reaps it on the loop):
        // the loop runs until each has been reaped.
        let pids = launched
        MainActor.assumeIsolated { spin(until: { pids.allSatisfy { kill($0, 0) != 0 } }) }
        for (name, value) in savedEnvironment {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        xdg.remove()
    }

    /// Sets a variable of the runner's own environment (what the launch context starts from)
    /// for this test only.
    private func setRunnerEnvironment(_ name: String, _ value: String) {
        if savedEnvironment[name] == nil { savedEnvironment[name] = .some(getenv(name).map { String(cString: $0) }) }
        setenv(name, value, 1)
    }

    /// Installs the probe as `appID` (continuing `com.example.probe.edit`) reporting to a new
    /// FIFO; returns the FIFO.
    private func installProbe(_ appID: String, extra: String = "") throws -> URL {
        let fifo = xdg.root.appendingPathComponent("report-\(appID)")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        try xdg.goodEntry(appID, exec: "\(productURL("LaunchProbe").path) \(fifo.path)", extra: extra)
        try xdg.manifest(appID, types: ["com.example.probe.edit"])
        return fifo
    }

    /// The lines the probe writes to `fifo`, up to its "end" line (at most 30 s).
    private func report(from fifo: URL) -> [String] {
        let fd = open(fifo.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { XCTFail("cannot open \(fifo.path)"); return [] }
        defer { close(fd) }
        var text = ""
        let deadline = Date(timeIntervalSinceNow: 30)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !text.contains("\nend\n"), Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { continue }
            let count = read(fd, &buffer, buffer.count)
            if count > 0 { text += String(decoding: buffer[..<count], as: UTF8.self) }
            else if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { break }
        }
        XCTAssertTrue(text.contains("\nend\n"), "the probe did not report: \(text)")
        return text.split(separator: "\n").map(String.init)
    }

    func testTheLaunchedAppSeesTheActivityTypeInItsLaunchOptionsAndTheTokenButNotTheAgentsSockets() throws {
        let fifo = try installProbe("com.example.Probe")
        for name in DesktopAppLauncher.withheldVariables { setRunnerEnvironment(name, "3") }
        let environment = xdg.environment
        launched += try MainActor.assumeIsolated {
            let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog(environment: environment))
            var pids: [pid_t] = []
            launcher.onLaunched = { appID, pid in
                XCTAssertEqual(appID, "com.example.Probe")
                pids.append(pid)
            }
            try launcher.launch(appID: "com.example.Probe", activityType: "com.example.probe.edit", activationToken: "test-token_1")
            return pids
        }
        let lines = report(from: fifo)
        XCTAssertTrue(lines.contains("will userActivityType=com.example.probe.edit"), "\(lines)")
        XCTAssertTrue(lines.contains("did userActivityType=com.example.probe.edit"), "\(lines)")
        XCTAssertTrue(lines.contains("env BATON_CONTINUE_ACTIVITY_TYPE=unset"), "taken from the environment at launch: \(lines)")
        XCTAssertTrue(lines.contains("child sees BATON_CONTINUE_ACTIVITY_TYPE: false"), "\(lines)")
        XCTAssertTrue(lines.contains("env XDG_ACTIVATION_TOKEN=test-token_1"), "\(lines)")
        XCTAssertTrue(lines.contains("env DESKTOP_STARTUP_ID=test-token_1"), "\(lines)")
        for name in DesktopAppLauncher.withheldVariables {
            XCTAssertTrue(lines.contains("env \(name)=unset"), "\(name) leaked: \(lines)")
        }
        XCTAssertEqual(launched.count, 1)
        XCTAssertTrue(lines.contains("pid \(launched.first ?? -1)"), "onLaunched gave the app's pid: \(lines)")
    }

    /// A DBusActivatable entry, with no session bus to activate it on, starts by its Exec line;
    /// a token that is not printable ASCII is not passed on.
    func testADBusActivatableEntryFallsBackToExecWithoutASessionBus() throws {
        let fifo = try installProbe("com.example.Activatable", extra: "DBusActivatable=true\nStartupNotify=true\n")
        setRunnerEnvironment("DBUS_SESSION_BUS_ADDRESS", "unix:path=\(xdg.root.path)/no-such-bus")
        let environment = xdg.environment
        launched += try MainActor.assumeIsolated {
            let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog(environment: environment))
            var pids: [pid_t] = []
            launcher.onLaunched = { _, pid in pids.append(pid) }
            try launcher.launch(appID: "com.example.Activatable", activityType: "com.example.probe.edit",
                                activationToken: "bad token\n")
            return pids
        }
        let lines = report(from: fifo)
        XCTAssertTrue(lines.contains("did userActivityType=com.example.probe.edit"), "\(lines)")
        XCTAssertTrue(lines.contains("env XDG_ACTIVATION_TOKEN=unset"), "\(lines)")
        XCTAssertTrue(lines.contains("env DESKTOP_STARTUP_ID=unset"), "\(lines)")
    }

    /// With a session bus, a DBusActivatable entry is activated there
    /// (`org.freedesktop.Application.Activate`), with the token as the platform data's
    /// `desktop-startup-id`: the launch context's startup-notify id, the one way a token
    /// reaches a D-Bus activated app. The bus is the test's own; the app on it is the test's
    /// stand-in, and nothing is spawned.
    func testWithASessionBusADBusActivatableEntryIsActivatedWithTheToken() throws {
        let busAddress = "unix:path=\(xdg.root.path)/bus"
        let bus = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
                                     ["--session", "--nofork", "--print-address", "--address=\(busAddress)"])
        defer { bus.terminate(); bus.waitForExit(timeout: 10) }
        XCTAssertNotNil(bus.waitForLine(containing: "unix:path="), bus.output)
        _ = try installProbe("com.example.Activated", extra: "DBusActivatable=true\nStartupNotify=true\n")
        setRunnerEnvironment("DBUS_SESSION_BUS_ADDRESS", busAddress)
        let environment = xdg.environment
        try MainActor.assumeIsolated {
            // GIO's own session-bus connection (a process-wide singleton, held weakly): this
            // test holds it, so that it does not end the runner when the bus stops, and closes it.
            var error: UnsafeMutablePointer<GError>?
            let session = try XCTUnwrap(g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error))
            g_dbus_connection_set_exit_on_close(session, 0)
            defer {
                g_dbus_connection_close_sync(session, nil, nil)
                g_object_unref(UnsafeMutableRawPointer(session))
            }
            let app = try ActivatableAppStandIn(appID: "com.example.Activated", address: busAddress)
            defer { app.close() }
            let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog(environment: environment))
            var pids: [pid_t] = []
            launcher.onLaunched = { _, pid in pids.append(pid) }
            try launcher.launch(appID: "com.example.Activated", activityType: "com.example.probe.edit", activationToken: "bus-token")
            spin(until: { !app.calls.isEmpty })
            XCTAssertEqual(app.calls.first?.method, "Activate")
            XCTAssertEqual(app.calls.first?.platformData["desktop-startup-id"], "bus-token")
            XCTAssertEqual(pids, [], "activated on the bus, not spawned")
        }
    }

    func testLaunchErrorsNameTheAppAndTheFile() throws {
        try xdg.goodEntry("com.example.Missing", exec: "/nonexistent/program")
        try xdg.manifest("com.example.Missing", types: ["com.example.probe.edit"])
        let entry = xdg.dataHome.path + "/applications/com.example.Missing.desktop"
        let manifest = xdg.dataHome.path + "/baton/apps/com.example.Missing.plist"
        let environment = xdg.environment
        try MainActor.assumeIsolated {
            let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog(environment: environment) { _ in })
            XCTAssertThrowsError(try launcher.launch(appID: "com.example.Nobody", activityType: "t", activationToken: nil)) {
                XCTAssertEqual($0 as? AppLaunchError, .notInstalled(appID: "com.example.Nobody"))
            }
            XCTAssertThrowsError(try launcher.launch(appID: "com.example.Missing", activityType: "other.type", activationToken: nil)) {
                XCTAssertEqual($0 as? AppLaunchError, .doesNotContinue(appID: "com.example.Missing", activityType: "other.type", manifest: manifest))
            }
            XCTAssertThrowsError(try launcher.launch(appID: "com.example.Missing", activityType: "com.example.probe.edit", activationToken: nil)) {
                XCTAssertEqual($0 as? AppLaunchError, .notLaunchable(appID: "com.example.Missing", desktopEntry: entry))
                XCTAssertTrue("\($0)".contains(entry))
            }
        }
    }
}
