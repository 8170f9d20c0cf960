import BatonLoop
import XCTest

/// Iterates the real GLib main loop until `condition`, failing the test after 20 s.
///
/// The loop blocks between events, so `condition` must turn true through an event that wakes
/// it. A condition that only holds once the 20 s are up (it changed on another thread and
/// nothing woke the loop) fails the test too, saying so, rather than passing late.
@MainActor
public func spin(until condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
    _ = MainLoop.run(until: { true }, timeout: .zero)  // the main-queue bridge exists
    var expired = false
    let deadline = MainLoop.after(.seconds(20)) { expired = true }
    defer { deadline.cancel() }
    while true {
        let done = condition()
        if expired {
            return XCTFail(done ? "the condition turned true without waking the loop (it changed on another thread and "
                                  + "nothing told the loop): found only when the 20 s deadline woke it"
                                : "timed out after 20 s", file: file, line: line)
        }
        if done { return }
        MainLoop.context.iterate(mayBlock: true)
    }
}

/// Lets every idle source queued so far run (late callbacks then show up before the test ends).
@MainActor
public func drainIdle() {
    var done = false
    MainLoop.idle(priority: LoopPriority(LoopPriority.low.rawValue + 100)) { done = true }
    spin(until: { done })
}

/// What `body` returned, or the error it threw.
@MainActor
public func result<T>(of body: @MainActor () async throws -> T) async -> Result<T, any Error> {
    do { return .success(try await body()) } catch { return .failure(error) }
}

/// Runs `body` on the loop to its end (failing the test past 20 s) and returns what it returned.
@MainActor
public func runToEnd<T>(_ body: @escaping @MainActor () async throws -> T, file: StaticString = #filePath,
                        line: UInt = #line) throws -> T {
    var outcome: Result<T, any Error>?
    Task { @MainActor in outcome = await result(of: body) }
    spin(until: { outcome != nil }, file: file, line: line)
    guard let outcome else { throw CocoaError(.featureUnsupported) }
    return try outcome.get()
}
