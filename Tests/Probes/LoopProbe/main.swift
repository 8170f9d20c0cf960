// Scenarios that must run in a process of their own: a real Application.main() from a
// synchronous main, and traps the test runner must survive.
import Baton
import Foundation

/// Unbuffered, so the order of lines survives a trap.
func print(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

final class Delegate: ApplicationDelegate {
    func applicationWillFinishLaunching(_ notification: Notification) { print("willFinishLaunching") }
    func applicationDidFinishLaunching(_ notification: Notification) {
        print("didFinishLaunching")
        Task { @MainActor in
            print("task on main thread: \(MainThreadRules.isInitialThread)")
            let value = await Task.detached { 6 * 7 }.value
            print("await resumed on main thread: \(MainThreadRules.isInitialThread) value: \(value)")
            DispatchQueue.main.async {
                print("DispatchQueue.main.async on main thread: \(MainThreadRules.isInitialThread)")
                MainLoop.after(.milliseconds(1)) { Application.shared.terminate(nil) }
            }
        }
    }
    func applicationWillBecomeActive(_ notification: Notification) { print("willBecomeActive") }
    func applicationDidBecomeActive(_ notification: Notification) { print("didBecomeActive") }
    func applicationWillTerminate(_ notification: Notification) { print("willTerminate") }
}

/// What a C callback or `@preconcurrency` code does: call main-actor API from another thread.
func callFromBackgroundThread(_ body: @escaping @MainActor () -> Void) -> Never {
    let unchecked = unsafeBitCast(body as @MainActor () -> Void, to: (@Sendable () -> Void).self)
    let thread = Thread { unchecked() }
    thread.start()
    while true { pause() }
}

switch CommandLine.arguments.dropFirst().first {
case "lifecycle":
    Application.main(delegate: Delegate())
    print("main returned")
case "window-off-main":
    callFromBackgroundThread { _ = Window(title: "from a background thread") }
default:
    print("usage: LoopProbe lifecycle|window-off-main")
    exit(2)
}
