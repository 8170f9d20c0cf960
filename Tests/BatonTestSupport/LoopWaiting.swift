import BatonLoop
import XCTest

/// Iterates the real GLib main loop until `condition`, failing the test after 20 s.
@MainActor
public func spin(until condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertTrue(MainLoop.run(until: condition, timeout: .seconds(20)), "timed out", file: file, line: line)
}

/// Lets every idle source queued so far run (late callbacks then show up before the test ends).
@MainActor
public func drainIdle() {
    var done = false
    MainLoop.idle(priority: LoopPriority(LoopPriority.low.rawValue + 100)) { done = true }
    spin(until: { done })
}
