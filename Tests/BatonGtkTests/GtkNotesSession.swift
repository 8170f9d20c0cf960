#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// What a GTK app of one device needs in a test: a virtual display (`VirtualDisplay`, Xvfb)
/// and a session bus of its own (a private `dbus-daemon`, so GApplication's one-instance rule
/// holds per device, as on two machines), both ending with the test; and the environment the
/// device's processes run with. Nothing of the machine's session is used.
final class GtkNotesSession {
    let display: VirtualDisplay
    let bus: RunningProcess
    let busAddress: String
    /// The device's environment: its display and bus, and XDG folders of its own under the
    /// test's folder.
    let environment: [String: String]

    /// Skips the test (saying why) when Xvfb or dbus-daemon is not installed.
    static func requireTools() throws {
        try VirtualDisplay.requireServer()
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            throw XCTSkip("no session bus: /usr/bin/dbus-daemon is not installed (Debian package dbus)")
        }
    }

    /// Starts the display and the bus of device `name`, with its folders under `root`.
    init(_ name: String, under root: URL) throws {
        display = try VirtualDisplay(width: 1024, height: 768)
        let socket = root.appendingPathComponent("\(name)-bus").path
        bus = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
                                 ["--session", "--nofork", "--print-address", "--address=unix:path=\(socket)"])
        busAddress = try XCTUnwrap(bus.waitForLine(containing: "unix:", timeout: 30), "dbus-daemon did not start: \(bus.output)")
            .trimmingCharacters(in: .whitespaces)
        var environment = ProcessInfo.processInfo.environment.merging(display.environment) { _, display in display }
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"), ("XDG_RUNTIME_DIR", "runtime")] {
            let path = root.appendingPathComponent("\(name)-\(folder)")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[variable] = path.path
        }
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("no-system-data").path
        self.environment = environment
    }

    /// Ends the bus and the display (bounded).
    func stop() {
        bus.terminate()
        bus.waitForExit(timeout: 10)
        display.stop()
    }
}
#endif
