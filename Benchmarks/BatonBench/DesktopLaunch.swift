import BatonLoop
import CGLib
import Foundation

/// An installed app started from its desktop entry through GIO (`GDesktopAppInfo`), as a
/// desktop's launcher, `gtk-launch` or `batond` starts it: the launch figure's baseline starts
/// the app the way the agent does, so that the figure compares what continuing adds.
@MainActor
enum DesktopLaunch {
    /// Starts the app of the desktop entry file `entry`, with `changes` to this process's
    /// environment (nil unsets), and returns the `CLOCK_MONOTONIC` time in its `launched NS`
    /// line (bench apps print it from `applicationDidFinishLaunching`). The app is killed then.
    static func timeToFinishLaunching(entry: String, changes: [String: String?]) throws -> UInt64 {
        guard let info = g_desktop_app_info_new_from_filename(entry) else { throw BenchFailure("\(entry) is not a launchable desktop entry") }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        let context = g_app_launch_context_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        for (name, value) in changes {
            if let value { g_app_launch_context_setenv(context, name, value) } else { g_app_launch_context_unsetenv(context, name) }
        }
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw BenchFailure("no pipe: errno \(errno)") }
        let devNull = open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer {
            close(output[0])
            close(devNull)
        }
        var pid: pid_t = 0
        var error: UnsafeMutablePointer<GError>?
        let launched = withUnsafeMutablePointer(to: &pid) { pidPointer in
            g_desktop_app_info_launch_uris_as_manager_with_fds(info, nil, context, G_SPAWN_SEARCH_PATH, nil, nil,
                                                              { _, pid, data in data!.assumingMemoryBound(to: pid_t.self).pointee = pid },
                                                              pidPointer, -1, output[1], devNull, &error)
        }
        close(output[1])
        guard launched != 0 else { throw BenchFailure("GIO could not launch \(entry): \(GLibError(consuming: error!).message)") }
        defer { if pid > 0 { kill(pid, SIGKILL) } }  // not this process's child: GIO's spawn detached it

        var text = Data(), ended = false
        let reader = MainLoop.whenReadable(output[0]) {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(output[0], &buffer, buffer.count)
            guard count > 0 else {
                ended = true
                return .stop
            }
            text.append(contentsOf: buffer[..<count])
            return .again
        }
        defer { reader.cancel() }
        func line() -> Substring? {
            let all = String(decoding: text, as: UTF8.self)
            return all[..<(all.lastIndex(of: "\n") ?? all.startIndex)].split(separator: "\n").first { $0.hasPrefix("launched ") }
        }
        MainLoop.run(until: { line() != nil || ended }, timeout: .seconds(60))
        guard let line = line(), let time = UInt64(line.split(separator: " ")[1]) else {
            throw BenchFailure("the app of \(entry) printed no launched line")
        }
        return time
    }
}
