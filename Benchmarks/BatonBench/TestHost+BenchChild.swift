import Foundation
import HostSupport

extension TestHost {
    /// Starts `command` (absolute executable first) inside the host — its network, its /run
    /// (so its own D-Bus and Avahi), its PID namespace — with `environment`, as a `BenchChild`
    /// (its standard output read as lines on the loop, its standard error in
    /// `logDirectory/name.log`). The process started is `nsenter`, whose child
    /// (`TestHost.firstChild(of:)`) is the command; the caller stops it.
    @MainActor
    func start(_ name: String, _ command: [String], environment: [String: String], logDirectory: URL) throws -> BenchChild {
        let line = try commandLine(entering: command)
        return try BenchChild(name, executable: URL(fileURLWithPath: line[0]), Array(line.dropFirst()), environment: environment,
                              logDirectory: logDirectory)
    }
}
