import Foundation

/// A real host for tests and the bench (docs/ARCHITECTURE.md, "Continuity"): fresh network, mount, UTS and PID namespaces
/// with a tmpfs on /run, its own `dbus-daemon --system` and `avahi-daemon`, and a veth link to
/// its partner host. Its command (a device process) is the host's first process.
///
/// Nothing outlives it: the command is PID 1 of the host's PID namespace, so the kernel ends the
/// daemons with it and drops the namespaces and the veth pair; `unshare --kill-child` and
/// `setpriv --pdeathsig` end the host if the test runner itself dies. `shutDown()` waits until
/// every process of the host has gone.
public final class TestHost: @unchecked Sendable {
    /// The host's name (its host name too).
    public let name: String
    /// The host's IPv4 address on the link.
    public let address: String
    /// `unshare`, whose child is the host's PID 1: the host lives as long as it does.
    public let process: RunningProcess
    /// The host's network namespace (`net:[inode]`), to check that nothing is left in it.
    public let networkNamespace: String

    /// Why hosts cannot be made here, or nil if they can.
    public static var unavailableReason: String? {
        if getuid() != 0 { return "network-namespace test hosts need root (CI runs as root)" }
        for tool in ["/usr/bin/setpriv", "/usr/bin/unshare", "/usr/bin/nsenter", "/usr/sbin/ip", "/usr/bin/dbus-daemon", "/usr/sbin/avahi-daemon"]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing (scripts/install-deps.sh installs it)"
        }
        if let probe = try? runProcess(URL(fileURLWithPath: "/usr/bin/unshare"), ["--net", "--mount", "--uts", "--pid", "--fork", "true"], timeout: 10),
           probe.status != 0 {
            return "this machine does not allow new namespaces: \(probe.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
        return nil
    }

    /// Two hosts on one link, 10.77.0.1 and 10.77.0.2 (each pair is a network of its own),
    /// running `commandA` and `commandB` (absolute executable first). Returns once both are up,
    /// daemons started; with `avahiOnA` false, host A's avahi-daemon waits for `startAvahi()`.
    public static func pair(_ commandA: [String], _ commandB: [String], avahiOnA: Bool = true) throws -> (TestHost, TestHost) {
        let a = try TestHost(name: "host-a", address: "10.77.0.1", command: commandA, avahi: avahiOnA)
        let b = try TestHost(name: "host-b", address: "10.77.0.2", command: commandB, avahi: true)
        try run("/usr/sbin/ip", ["link", "add", "veth0", "netns", "\(a.process.processIdentifier)", "type", "veth",
                                 "peer", "name", "veth0", "netns", "\(b.process.processIdentifier)"])
        for host in [a, b] {
            host.process.send("go")
            guard host.process.waitForLine(containing: "host \(host.name) up") != nil else {
                throw HostError.failed("\(host.name) did not come up:\n\(host.process.output)")
            }
        }
        return (a, b)
    }

    /// A host of its own, on no link yet (for routers, servers and devices of a topology, such
    /// as `NatTopology`): fresh namespaces as `pair`'s hosts, /run and /proc its own, loopback
    /// up, no D-Bus or Avahi; `command` (by default one that waits forever) is its first process.
    /// Returns once it runs. Its links come from `link(_:_:_:_:)`, their addresses and routes
    /// from `run(inNetwork:)`; `address` is empty.
    public static func bare(name: String, command: [String] = ["/bin/sleep", "infinity"]) throws -> TestHost {
        let script = """
            set -eu
            mount -t tmpfs -o mode=0755 tmpfs /run
            mount -t proc proc /proc
            hostname "$0"
            ip link set lo up
            echo "waiting-for-link"
            exec "$@"
            """
        return try TestHost(name: name, address: "", arguments: ["/bin/sh", "-c", script, name] + command, environment: [:])
    }

    /// Joins `a` and `b` by a veth pair, its end in `a` named `nameA` and its end in `b`
    /// `nameB`, both still down (the kernel removes the pair with either host's network).
    public static func link(_ a: TestHost, _ nameA: String, _ b: TestHost, _ nameB: String) throws {
        try run("/usr/sbin/ip", ["link", "add", nameA, "netns", "\(a.process.processIdentifier)", "type", "veth",
                                 "peer", "name", nameB, "netns", "\(b.process.processIdentifier)"])
    }

    private convenience init(name: String, address: String, command: [String], avahi: Bool) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts/test-host.sh").standardizedFileURL.path
        try self.init(name: name, address: address, arguments: ["/bin/sh", script, name, address + "/24"] + command,
                      environment: ["TEST_HOST_AVAHI": avahi ? "1" : "0"])
    }

    /// `arguments` (a script that says `waiting-for-link` once the host is ready) as the first
    /// process of fresh namespaces.
    private init(name: String, address: String, arguments: [String], environment: [String: String]) throws {
        self.name = name
        self.address = address
        // A RunningProcess runs under `setpriv --pdeathsig KILL` (see ChildProcess).
        process = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/unshare"),
                                     ["--net", "--mount", "--uts", "--pid", "--fork", "--kill-child", "--"] + arguments,
                                     environment: environment)
        guard process.waitForLine(containing: "waiting-for-link") != nil else {
            throw HostError.failed("\(name) did not start:\n\(process.output)")
        }
        networkNamespace = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/ns/net")) ?? "?"
    }

    /// The host's PID 1 (the child of `unshare`), whose namespaces are all the host's own.
    private var firstProcess: Int32? { Self.firstChild(of: process.processIdentifier) }

    /// The first child of process `pid` (`/proc/PID/task/PID/children`), if any: the host's
    /// PID 1 under `unshare`, or the command under the `nsenter` that `start` or
    /// `commandLine(entering:)` runs.
    public static func firstChild(of pid: Int32) -> Int32? {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.first
    }

    /// Runs `command` in the host's network namespace (as `ip link set veth0 down`).
    public func run(inNetwork command: [String]) throws {
        try Self.run("/usr/bin/nsenter", ["--target", "\(process.processIdentifier)", "--net", "--"] + command)
    }

    /// Starts `command` inside the host: its network, its /run (so its own D-Bus and Avahi)
    /// and its PID namespace (so it ends with the host).
    public func start(_ command: [String]) throws -> RunningProcess {
        let entering = try commandLine(entering: command)
        let process = try RunningProcess(executable: URL(fileURLWithPath: entering[0]), Array(entering.dropFirst()))
        started.append(process)
        return process
    }

    /// The command line (`nsenter`, absolute, first) that runs `command` inside the host as
    /// `start` does, for a caller that starts and ends it itself (the bench, reading its
    /// output on its loop). Once the host is shut down, the command has ended.
    public func commandLine(entering command: [String]) throws -> [String] {
        guard let first = firstProcess else { throw HostError.failed("\(name) is not running") }
        return ["/usr/bin/nsenter", "--target", "\(first)", "--net", "--mount", "--uts", "--pid", "--"] + command
    }

    /// What `start` started: each an `nsenter` in the host's network but outside its PID
    /// namespace, which ends once the command in the host has ended.
    private var started: [RunningProcess] = []

    /// Starts the host's avahi-daemon (for a host made without it); returns once it runs.
    public func startAvahi() throws {
        let daemon = try start(["/usr/sbin/avahi-daemon", "--file=/run/avahi-daemon.conf", "--no-chroot", "--no-rlimits", "--daemonize"])
        let status = daemon.waitForExit()
        guard status == 0 else { throw HostError.failed("avahi-daemon did not start on \(name) (status \(status)):\n\(daemon.output)") }
    }

    /// Ends the host's first process and waits for the host to be gone. Afterwards no process
    /// is left in its network namespace (the caller can check with `leftoverProcesses`).
    public func shutDown() {
        killFirstProcess()
        process.waitForExit(timeout: 20)  // unshare returns once its child, the host's PID 1, is reaped:
                                           // by then the kernel has ended every process of the host
        for process in started { process.waitForExit(timeout: 10) }  // and each nsenter has reaped its child
    }

    /// Waits for the host's command to end by itself; after `timeout` it is killed (SIGKILL to
    /// the host's PID 1: `unshare --fork` ignores SIGTERM). Returns the command's status.
    @discardableResult
    public func waitForExit(timeout: TimeInterval = 30) -> Int32 {
        let deadline = DispatchWorkItem { [self] in killFirstProcess() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
        defer { deadline.cancel() }
        return process.waitForExit(timeout: timeout + 20)
    }

    private func killFirstProcess() {
        if let first = firstProcess { kill(first, SIGKILL) }
    }

    /// Processes still in this host's network namespace (none once it is shut down).
    public var leftoverProcesses: [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\($0)/ns/net")) == networkNamespace
        }
    }

    deinit { shutDown() }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let result = try runProcess(URL(fileURLWithPath: tool), arguments, timeout: 20)
        guard result.status == 0 else { throw HostError.failed("\(tool) \(arguments.joined(separator: " ")): \(result.stderr)") }
    }

    /// A host could not be made or a command in it failed: what happened, with the tool's output.
    public enum HostError: Error, CustomStringConvertible {
        case failed(String)
        /// The message.
        public var description: String { if case .failed(let text) = self { text } else { "" } }
    }
}
