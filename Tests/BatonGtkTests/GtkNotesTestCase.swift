#if canImport(BatonGtk)
import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// A test of GtkNotes between devices: a private folder for the test, the devices' sessions
/// (`GtkNotesSession`: display, session bus, XDG folders) and every process started, ended at
/// teardown — apps first (they save their notes), then agents, buses and displays.
class GtkNotesTestCase: XCTestCase {
    var root: URL!
    var processes: [RunningProcess] = []
    var sessions: [GtkNotesSession] = []

    override func setUpWithError() throws {
        try GtkNotesSession.requireTools()
        root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-gtk-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    override func tearDownWithError() throws {
        for process in processes.reversed() { process.terminate() }
        for process in processes.reversed() { process.waitForExit(timeout: 10) }
        processes = []
        for session in sessions { session.stop() }
        sessions = []
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    /// Starts `program` (a product, or the executable at that absolute path); ended with the test.
    func start(_ program: String, _ arguments: [String], environment: [String: String]? = nil) throws -> RunningProcess {
        let process = program.hasPrefix("/") ? try RunningProcess(executable: URL(fileURLWithPath: program), arguments, environment: environment)
            : try RunningProcess(product: program, arguments, environment: environment)
        processes.append(process)
        return process
    }

    /// A new group (administered in `admin`) and its devices `names`, each identity in a
    /// folder of its own; returns the folders' paths.
    func deviceFolders(_ names: String...) throws -> [String] {
        let authority = try GroupAuthority.create(name: "Ada", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        return try names.map { name in
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            return folder.path
        }
    }

    /// Device `name`'s session, ended with the test.
    func session(_ name: String) throws -> GtkNotesSession {
        let session = try GtkNotesSession(name, under: root)
        sessions.append(session)
        return session
    }
}
#endif
