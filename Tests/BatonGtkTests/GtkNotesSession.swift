#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// What a GTK app of one device needs in a test: a virtual display (`VirtualDisplay`, Xvfb)
/// and a session bus of its own (a private `dbus-daemon`, so GApplication's one-instance rule
/// holds per device, as on two machines), both ending with the test; and the environment the
/// device's processes run with. Nothing of the machine's session is used.
///
/// The bus runs with the device's environment, so an app it starts by D-Bus activation has the
/// device's display and folders, and it finds service files where a session bus does
/// (`<standard_session_servicedirs/>`): under the device's `XDG_DATA_HOME` and
/// `XDG_DATA_DIRS`, each `dbus-1/services`. What it starts runs in its process group, and ends
/// with it (`stop()`).
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
        var environment = ProcessInfo.processInfo.environment.merging(display.environment) { _, display in display }
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_CONFIG_HOME", "config"), ("XDG_RUNTIME_DIR", "runtime"),
                                   ("XDG_STATE_HOME", "state")] {
            let path = root.appendingPathComponent("\(name)-\(folder)")
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[variable] = path.path
        }
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("no-system-data").path
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(socket)"
        bus = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
                                 ["--session", "--nofork", "--print-address", "--address=unix:path=\(socket)"],
                                 environment: environment)
        busAddress = try XCTUnwrap(bus.waitForLine(containing: "unix:", timeout: 30), "dbus-daemon did not start: \(bus.output)")
            .trimmingCharacters(in: .whitespaces)
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        self.environment = environment
    }

    /// Ends the bus and what it started (D-Bus activated apps, in its process group): SIGTERM
    /// to the group, then waits for the bus and for each of them, SIGKILL to any still there
    /// after 10 s; then the display.
    func stop() {
        let group = bus.processIdentifier
        bus.terminate()
        bus.waitForExit(timeout: 10)
        let deadline = Date(timeIntervalSinceNow: 10)
        for member in Self.members(ofGroup: group) where !Self.wait(for: member, until: deadline) {
            kill(member, SIGKILL)
            _ = Self.wait(for: member, until: Date(timeIntervalSinceNow: 10))
        }
        display.stop()
    }

    /// The processes of process group `group` (from /proc).
    private static func members(ofGroup group: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After "pid (comm)": state ppid pgrp …
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[2]) == group ? pid : nil
        }
    }

    /// Waits until process `pid` (not a child of the runner's) has exited or `deadline` passes:
    /// a pidfd becomes readable when it exits. Returns whether it exited.
    private static func wait(for pid: pid_t, until deadline: Date) -> Bool {
        guard let pidfdOpen else { return false }
        let descriptor = pidfdOpen(pid, 0)
        guard descriptor >= 0 else { return errno == ESRCH }
        defer { close(descriptor) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let milliseconds = Int32(max(0, min(deadline.timeIntervalSinceNow * 1000, Double(Int32.max))))
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }

    /// glibc's `pidfd_open` (2.36+), which Swift does not import.
    private static let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
    }()
}
#endif
