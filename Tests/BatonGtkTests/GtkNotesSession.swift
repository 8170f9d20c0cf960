import BatonTestSupport
import Foundation
import XCTest

/// What a GTK app of one device needs in a test: a virtual display (Xvfb, `DISPLAY`) and a
/// session bus of its own (a private `dbus-daemon`, so GApplication's one-instance rule holds
/// per device, as on two machines), started as real processes that end with the test; and
/// the environment a GtkNotes of that device runs with. Nothing of the machine's session is
/// used.
struct GtkNotesSession {
    /// The environment for the device's processes: its display and bus, its own XDG folders
    /// under `folder`, GTK drawing with cairo (no GL under Xvfb) and no accessibility bus.
    let environment: [String: String]
    let display: String
    let busAddress: String

    /// Why the test is skipped, if Xvfb or dbus-daemon is missing.
    static var missingTools: String? {
        for tool in ["/usr/bin/Xvfb", "/usr/bin/dbus-daemon"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is not installed (scripts/install-deps.sh installs xvfb and dbus)"
        }
        return nil
    }

    /// Starts the display and the bus for device `name` under `root`; `start` starts (and
    /// records, to be ended with the test) a process.
    init(_ name: String, under root: URL, start: (String, [String]) throws -> RunningProcess) throws {
        // -displayfd: Xvfb picks a free display and writes its number once it accepts clients;
        // the shell prefixes it so the line can be waited for. Xvfb's own messages go to a log.
        let log = root.appendingPathComponent("\(name)-xvfb.log").path
        let xvfb = try start("/bin/sh", ["-c", "/usr/bin/Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp -noreset 3>&1 >'\(log)' 2>&1"
                                         + " | while read number; do echo \"display :$number\"; done"])
        let line = xvfb.waitForLine(containing: "display :", timeout: 30)
        let displayNumber = try XCTUnwrap(line.flatMap { Int($0.dropFirst("display :".count)) },
                                          "Xvfb did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        display = ":\(displayNumber)"
        let socket = root.appendingPathComponent("\(name)-bus").path
        let bus = try start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address", "--address=unix:path=\(socket)"])
        busAddress = try XCTUnwrap(bus.waitForLine(containing: "unix:", timeout: 30), "dbus-daemon did not start: \(bus.output)")
            .trimmingCharacters(in: .whitespaces)
        var environment = ProcessInfo.processInfo.environment
        environment["DISPLAY"] = display
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment.removeValue(forKey: "WAYLAND_DISPLAY")
        environment["GDK_BACKEND"] = "x11"
        environment["GSK_RENDERER"] = "cairo"
        environment["GTK_A11Y"] = "none"
        environment["NO_AT_BRIDGE"] = "1"
        environment["GSETTINGS_BACKEND"] = "memory"
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("\(name)-data").path
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("no-system-data").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("\(name)-config").path
        environment["XDG_RUNTIME_DIR"] = root.appendingPathComponent("\(name)-runtime").path
        try FileManager.default.createDirectory(at: root.appendingPathComponent("\(name)-runtime"), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        self.environment = environment
    }
}
