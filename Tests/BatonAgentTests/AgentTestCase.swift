import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// A test case that runs agents (`batond`) and example apps as real processes, each device of
/// one group made with its own identity folder under a temporary root. Every process a test
/// starts is ended and waited for (bounded) when the test ends, even when it failed.
class AgentTestCase: XCTestCase {
    var root: URL!
    var processes: [RunningProcess] = []

    override func setUpWithError() throws {
        // Short: a Unix socket path has at most 107 bytes.
        root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-agent-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        chmod(root.path, 0o700)  // the agents' sockets are here: a folder as private as a runtime directory
    }

    override func tearDownWithError() throws {
        for process in processes { process.terminate() }
        for process in processes { process.waitForExit(timeout: 10) }
        processes = []
        DetachedProcesses.end(naming: root)  // agents an app or `baton` autostarted (detached)
        try? FileManager.default.removeItem(at: root)
    }

    /// A new group and its devices `names`, each in a folder of its own; returns the folders' paths.
    func devices(_ names: String...) throws -> [String] {
        let authority = try GroupAuthority.create(name: "Ada", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        return try names.map { name in
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            return folder.path
        }
    }

    /// Starts `product` (or the executable at that absolute path) with `arguments`; ended with the test.
    func start(_ product: String, _ arguments: [String], environment: [String: String]? = nil) throws -> RunningProcess {
        let process = product.hasPrefix("/") ? try RunningProcess(executable: URL(fileURLWithPath: product), arguments, environment: environment)
            : try RunningProcess(product: product, arguments, environment: environment)
        processes.append(process)
        return process
    }

    /// Starts `batond` for the device in `folder` with its socket at `socket`; returns it, once
    /// it serves apps there (its `agentServing` event), and the address its device listens on
    /// (its `listening` event).
    func agent(_ folder: String, socket: String, listen: String = "127.0.0.1:0", peers: [String] = []) throws -> (RunningProcess, String) {
        let process = try start("batond", ["--device", folder, "--listen", listen, "--socket", socket] + peers.flatMap { ["--peer", $0] })
        let address = try XCTUnwrap(process.listeningAddress(), process.output)
        XCTAssertTrue(process.waitForAgentServing(at: socket), process.output)
        return (process, address.description)
    }

    /// Devices A and B of one group, each with its agent (sockets `a.sock`, `b.sock`), B's
    /// dialing A; returns both agents and the address A's device listens on.
    func twoLinkedAgents() throws -> (agentA: RunningProcess, agentB: RunningProcess, address: String) {
        let folders = try devices("A", "B")
        let (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let (agentB, _) = try agent(folders[1], socket: socket("b.sock"), peers: [address])
        return (agentA, agentB, address)
    }

    /// Starts an example app joined to the agent at `socket`; returns once it has joined (its
    /// own `joinedAgent` event: the agent answered its join and it took the answer).
    func app(_ product: String, socket: String, _ arguments: [String]) throws -> RunningProcess {
        let process = try start(product, ["--agent", socket] + arguments)
        XCTAssertTrue(process.waitForJoinedAgent(at: socket), process.output)
        return process
    }

    func socket(_ name: String) -> String { root.appendingPathComponent(name).path }

    /// The threads libdispatch started in `process` for Swift's global pool (named after their
    /// queue: `…-qos`, `…-qos.overcommit`). The agent, and Baton's side of an app, run everything
    /// on their loop; once such a thread exists, libdispatch's pool monitor wakes the process
    /// every second for the rest of its life, so an idle agent or app would not be idle.
    /// A process that is no longer running fails the test (its threads say nothing).
    func swiftPoolThreads(of process: RunningProcess, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        guard process.isRunning,
              let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task"), !tasks.isEmpty else {
            XCTFail("process \(process.processIdentifier) is not running: its threads cannot be read", file: file, line: line)
            return ["(not running)"]
        }
        return tasks.compactMap { task in
            let name = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return name.contains("qos") ? name : nil
        }
    }
}
