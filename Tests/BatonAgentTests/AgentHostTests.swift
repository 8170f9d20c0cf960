import BatonTestSupport
import CGLib
import XCTest
@testable import BatonAgent

/// The agent's runtime directory, its single-instance lock, its listening socket and systemd
/// socket activation — the parts of `AgentHost`, each against the real system calls.
final class AgentHostTests: XCTestCase {
    private var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("baton-host-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: base) }

    private func mode(_ path: String) -> mode_t {
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0, path)
        return info.st_mode & 0o7777
    }

    // MARK: The runtime directory

    func testTheUsersAgentIsUnderXDGRuntimeDirOrWhereTheLoginManagerMakesIt() throws {
        XCTAssertEqual(AgentRuntimeDirectory.standard(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]).socketPath,
                       "/run/user/1000/baton/agent.socket")
        XCTAssertEqual(AgentRuntimeDirectory.standard(environment: [:]).socketPath, "/run/user/\(getuid())/baton/agent.socket")
        XCTAssertEqual(AgentRuntimeDirectory.standard(environment: ["XDG_RUNTIME_DIR": "relative/dir"]).socketPath,
                       "/run/user/\(getuid())/baton/agent.socket", "a relative runtime directory is not taken")
        let explicit = AgentRuntimeDirectory.standard(environment: ["BATON_AGENT_SOCKET": "/tmp/x/a.sock", "XDG_RUNTIME_DIR": "/run/user/1000"])
        XCTAssertEqual(explicit.socketPath, "/tmp/x/a.sock")
        XCTAssertEqual(explicit.lockPath, "/tmp/x/a.sock.lock")
    }

    func testPrepareCreatesAPrivateDirectory() throws {
        let directory = AgentRuntimeDirectory(url: base.appendingPathComponent("baton"))
        try directory.prepare()
        XCTAssertEqual(mode(directory.url.path), 0o700)
        try directory.prepare()  // again: it exists and is fine
    }

    func testPrepareRefusesADirectoryOthersCanEnterASymlinkOrAnotherOwner() throws {
        let open = base.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o755)
        XCTAssertThrowsError(try AgentRuntimeDirectory(url: open).prepare()) { error in
            guard case .unsafeDirectory(let path, let problem)? = error as? AgentHostError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, open.path)
            XCTAssertTrue(problem.contains("755"), problem)
        }
        XCTAssertEqual(mode(open.path), 0o755, "a refused directory is left as it was")

        let link = base.appendingPathComponent("link")
        let target = base.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        chmod(target.path, 0o700)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        XCTAssertThrowsError(try AgentRuntimeDirectory(url: link).prepare()) { error in
            guard case .unsafeDirectory(let path, _)? = error as? AgentHostError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, link.path, "the link itself is refused, not the directory it points to")
        }

        guard getuid() == 0 else { throw XCTSkip("giving a directory to another user needs root") }
        let theirs = base.appendingPathComponent("theirs")
        try FileManager.default.createDirectory(at: theirs, withIntermediateDirectories: false)
        chmod(theirs.path, 0o700)
        XCTAssertEqual(chown(theirs.path, 4242, 4242), 0)
        XCTAssertThrowsError(try AgentRuntimeDirectory(url: theirs).prepare()) { error in
            guard case .unsafeDirectory(let path, _)? = error as? AgentHostError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, theirs.path)
        }
    }

    // MARK: The lock

    func testOneLockHolderAtATimeAndTheSecondIsToldWhichPid() throws {
        let directory = AgentRuntimeDirectory(url: base.appendingPathComponent("baton"))
        try directory.prepare()
        var first: AgentLock? = try AgentLock.acquire(in: directory)
        XCTAssertEqual(mode(directory.lockPath) & 0o777, 0o600)
        XCTAssertThrowsError(try AgentLock.acquire(in: directory)) { error in
            XCTAssertEqual(error as? AgentHostError, .alreadyRunning(lock: directory.lockPath, pid: getpid()))
        }
        first = nil
        XCTAssertNil(first)
        XCTAssertNoThrow(try AgentLock.acquire(in: directory), "the lock is free once its holder is gone")
    }

    /// A holder killed with SIGKILL leaves no stale lock: the kernel drops a flock with the
    /// process's last descriptor of the file. The holder is util-linux's `flock`, a real
    /// process that holds it until killed.
    func testALockHolderKilledWithSIGKILLLeavesNoStaleLock() throws {
        let directory = AgentRuntimeDirectory(url: base.appendingPathComponent("baton"))
        try directory.prepare()
        let holder = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/flock"),
                                        ["--exclusive", "--no-fork", directory.lockPath, "sh", "-c", "echo held; exec cat"])
        XCTAssertNotNil(holder.waitForLine(containing: "held"))
        XCTAssertThrowsError(try AgentLock.acquire(in: directory)) { error in
            guard case .alreadyRunning? = error as? AgentHostError else { return XCTFail("\(error)") }
        }
        kill(holder.processIdentifier, SIGKILL)
        holder.waitForExit()
        XCTAssertNoThrow(try AgentLock.acquire(in: directory))
    }

    // MARK: The listening socket

    func testBindingReplacesASocketLeftBehindButNeverAnotherFile() throws {
        let directory = AgentRuntimeDirectory(url: base.appendingPathComponent("baton"))
        try directory.prepare()
        let stale = try AgentListeningSocket.bind(directory.socketPath)
        g_object_unref(UnsafeMutableRawPointer(stale))  // closed, file left behind: a killed agent's
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory.socketPath))
        let socket = try AgentListeningSocket.bind(directory.socketPath)
        defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
        XCTAssertEqual(mode(directory.socketPath) & 0o777, 0o600)
        XCTAssertNoThrow(try SocketActivation.checkListeningUnixStream(g_socket_get_fd(UnsafeMutablePointer(socket))))

        let file = base.appendingPathComponent("not-a-socket")
        try Data("keep me".utf8).write(to: file)
        XCTAssertThrowsError(try AgentListeningSocket.bind(file.path)) { error in
            guard case .unsafeDirectory(let path, _)? = error as? AgentHostError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, file.path)
        }
        XCTAssertEqual(try Data(contentsOf: file), Data("keep me".utf8))
    }

    // MARK: Socket activation

    func testLISTENFDSIsTakenOnlyWhenMeantForThisProcess() {
        XCTAssertNil(SocketActivation.descriptor(named: "agent", environment: [:], pid: 10))
        XCTAssertNil(SocketActivation.descriptor(named: "agent", environment: ["LISTEN_PID": "11", "LISTEN_FDS": "1"], pid: 10))
        XCTAssertNil(SocketActivation.descriptor(named: "agent", environment: ["LISTEN_PID": "10", "LISTEN_FDS": "0"], pid: 10))
        XCTAssertNil(SocketActivation.descriptor(named: "agent", environment: ["LISTEN_PID": "10", "LISTEN_FDS": "x"], pid: 10))
        XCTAssertEqual(SocketActivation.descriptor(named: "agent", environment: ["LISTEN_PID": "10", "LISTEN_FDS": "1"], pid: 10), 3)
        XCTAssertEqual(SocketActivation.descriptor(named: "agent", environment: [
            "LISTEN_PID": "10", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "other:agent"], pid: 10), 4)
    }

    func testOnlyAListeningUnixStreamSocketIsAccepted() throws {
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { close(pair[0]); close(pair[1]) }
        XCTAssertThrowsError(try SocketActivation.checkListeningUnixStream(pair[0])) {
            guard case .notAListeningSocket(let fd, _)? = $0 as? AgentHostError else { return XCTFail("\($0)") }
            XCTAssertEqual(fd, pair[0])
        }
        let file = open("/dev/null", O_RDONLY)
        defer { close(file) }
        XCTAssertThrowsError(try SocketActivation.checkListeningUnixStream(file))
    }

    // MARK: agent.conf

    func testSettingsAreReadFromAgentConfAndABadFileIsNamed() throws {
        let file = base.appendingPathComponent("agent.conf")
        XCTAssertEqual(try AgentSettings.read(from: file), AgentSettings(), "no file: the defaults")
        try "# mine\n[Agent]\nNotifications=false\nListen=0.0.0.0:0\nAuthority=/srv/baton\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertEqual(try AgentSettings.read(from: file), AgentSettings(notifications: false, listen: "0.0.0.0:0", authority: "/srv/baton"))
        try "[Agent]\nNotifications=perhaps\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try AgentSettings.read(from: file)) { error in
            guard case .badValue(let path, let key, _)? = error as? AgentSettingsError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, file.path)
            XCTAssertEqual(key, "Notifications")
        }
        try "not a key file\n".write(to: file, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try AgentSettings.read(from: file)) { error in
            guard case .malformed(let path, _)? = error as? AgentSettingsError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, file.path)
        }
    }
}
