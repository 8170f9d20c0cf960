import BatonLoop
import CGLib
import Foundation

/// A network-namespace host for the bench, made as the tests' `TestHost` makes one:
/// `scripts/test-host.sh` as the first process of fresh network, mount, UTS and PID namespaces
/// (`unshare`), with its own `dbus-daemon --system` and `avahi-daemon`, and a veth link to its
/// partner host. Its first process waits on its input; the bench's processes run in it
/// through `nsenter` (`start`).
///
/// Nothing outlives it: `shutDown()` kills the host's first process, and the kernel then ends
/// every process of its PID namespace and drops its namespaces and the veth pair; the host
/// runs under `setpriv --pdeathsig KILL` and `unshare --kill-child`, so it also ends if the
/// bench dies.
@MainActor
final class BenchHost {
    let name: String
    /// The host's IPv4 address on the link.
    let address: String
    /// `setpriv` → `unshare` (one process: setpriv execs), in the host's network namespace.
    private let shell: BenchChild
    /// What `start` started (`nsenter`s), stopped at `shutDown()`.
    private var started: [BenchChild] = []

    private static let tools = ["/usr/bin/setpriv", "/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/ip", "/usr/bin/dbus-daemon",
                                "/usr/sbin/avahi-daemon"]

    /// Why hosts cannot be made here, or nil if they can.
    static var unavailableReason: String? {
        if getuid() != 0 { return "needs root (network-namespace hosts)" }
        if let missing = tools.first(where: { !FileManager.default.isExecutableFile(atPath: $0) }) {
            return "\(missing) is missing (scripts/install-deps.sh installs it)"
        }
        return nil
    }

    /// The script each host runs (`scripts/test-host.sh` of this source tree).
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/test-host.sh").standardizedFileURL.path

    /// Two hosts on one link, 10.77.0.1 and 10.77.0.2, each with its avahi-daemon; returns once
    /// both are up. Their logs go to `logDirectory`. On a failure, what was made is shut down.
    static func pair(logDirectory: URL) throws -> (BenchHost, BenchHost) {
        let a = try BenchHost(name: "host-a", address: "10.77.0.1", logDirectory: logDirectory)
        do {
            let b = try BenchHost(name: "host-b", address: "10.77.0.2", logDirectory: logDirectory)
            do {
                try run("/usr/sbin/ip", ["link", "add", "veth0", "netns", "\(a.shell.pid)", "type", "veth",
                                         "peer", "name", "veth0", "netns", "\(b.shell.pid)"])
                for host in [a, b] {
                    host.shell.send("go")
                    try host.shell.waitForLine("host \(host.name) up", timeout: .seconds(30))
                }
                return (a, b)
            } catch {
                b.shutDown()
                throw error
            }
        } catch {
            a.shutDown()
            throw error
        }
    }

    private init(name: String, address: String, logDirectory: URL) throws {
        self.name = name
        self.address = address
        shell = try BenchChild(name, executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
                               ["--pdeathsig", "KILL", "--", "/usr/bin/unshare", "--net", "--mount", "--uts", "--pid", "--fork",
                                "--kill-child", "--", "/bin/sh", Self.script, name, address + "/24", "/bin/sh", "-c", "read -r end"],
                               environment: ProcessInfo.processInfo.environment.merging(["TEST_HOST_AVAHI": "1"]) { _, new in new },
                               logDirectory: logDirectory)
        do { try shell.waitForLine("waiting-for-link", timeout: .seconds(30)) } catch {
            shell.stop()
            throw error
        }
    }

    /// The host's PID 1 (the child of `unshare`), whose namespaces are all the host's own.
    private var firstProcess: Int32? { Self.firstChild(of: shell.pid) }

    /// The first child of process `pid` (`/proc/PID/task/PID/children`), if any.
    static func firstChild(of pid: Int32) -> Int32? {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.first
    }

    /// Starts `command` (absolute executable first) inside the host — its network, its /run
    /// (so its own D-Bus and Avahi), its PID namespace — with `environment`; its standard
    /// output is read as `BenchChild` lines, its standard error goes to `logDirectory/name.log`.
    /// The process started is `nsenter`, whose child (`BenchHost.firstChild(of:)`) is the command.
    func start(_ name: String, _ command: [String], environment: [String: String], logDirectory: URL) throws -> BenchChild {
        guard let first = firstProcess else { throw BenchFailure("\(self.name) is not running") }
        let child = try BenchChild(name, executable: URL(fileURLWithPath: "/usr/bin/nsenter"),
                                   ["--target", "\(first)", "--net", "--mount", "--uts", "--pid", "--"] + command,
                                   environment: environment, logDirectory: logDirectory)
        started.append(child)
        return child
    }

    /// Runs `command` (absolute executable first) in the host's network namespace alone (as
    /// `ip` or `nft` need) and waits for it; throws if it fails.
    func run(inNetwork command: [String]) throws {
        guard let first = firstProcess else { throw BenchFailure("\(name) is not running") }
        try Self.run("/usr/bin/nsenter", ["--target", "\(first)", "--net", "--"] + command)
    }

    /// Ends the host: SIGKILL to its first process (the kernel then ends every process of
    /// the host), then waits for `unshare` and each `nsenter` to end. Again, does nothing more.
    func shutDown() {
        if let first = firstProcess { kill(first, SIGKILL) }
        shell.stop()
        for child in started { child.stop() }
        started = []
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchFailure("\(tool) \(arguments.joined(separator: " ")): \(String(decoding: message, as: UTF8.self))")
        }
    }
}
