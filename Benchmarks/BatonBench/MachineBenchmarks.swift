import CGLib
import Foundation

/// What the machine itself charges every figure that crosses threads or processes: one thread
/// waking another through a socket after it sat idle, as each hop of a continuation does (a
/// person continues after idle time). On a virtual machine, waking a CPU that had gone idle
/// costs far more than waking a thread on the CPU that is running, and the scheduler, not the
/// program, decides which one a wake-up gets. The continuation through agents takes two
/// process hops more than the one through embedded nodes; this says what such a hop can cost
/// here, whatever Baton does.
enum MachineBenchmarks {
    static let roundTrips = 1_000

    /// p50 of `roundTrips` round trips (µs) between this thread and an echoing thread over a
    /// Unix socket pair, each after 1 ms idle: both threads on CPU 0, or the echo on CPU 1
    /// (`crossCPU`). NaN on a machine with one CPU. This thread's CPU set is restored after.
    static func socketRoundTrip(crossCPU: Bool) -> Double {
        guard ProcessInfo.processInfo.activeProcessorCount >= 2 else { return .nan }
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { return .nan }
        let (near, far) = (pair[0], pair[1])
        let ended = DispatchSemaphore(value: 0)
        let echo = Thread {
            pin(to: crossCPU ? 1 : 0)
            var byte: UInt8 = 0
            while awaitReadable(far), read(far, &byte, 1) == 1, write(far, &byte, 1) == 1 {}
            ended.signal()
        }
        echo.start()
        let saved = baton_thread_cpus()
        pin(to: 0)
        var times: [Double] = []
        var byte: UInt8 = 1
        for _ in 0..<roundTrips {
            var idle = timespec(tv_sec: 0, tv_nsec: 1_000_000)
            nanosleep(&idle, nil)  // the idle time is what is measured against: not a wait for an event
            let start = ContinuousClock.now
            guard write(near, &byte, 1) == 1, awaitReadable(near), read(near, &byte, 1) == 1 else { break }
            times.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
        }
        if saved != 0 { baton_set_thread_cpus(saved) }
        close(near)  // the echo thread reads the end and stops
        ended.wait()
        close(far)
        return times.count == roundTrips ? percentile(times, 50) : .nan
    }

    /// Keeps the calling thread on CPU `cpu`.
    private static func pin(to cpu: Int) { baton_set_thread_cpus(1 << UInt(cpu)) }

    /// Blocks in `poll` until `fd` is readable (or hung up): as the apps' loops wait.
    private static func awaitReadable(_ fd: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, -1) == 1
    }

    /// The machine's figure, for the continuation figures' report.
    static func figure() -> Figure {
        Figure(name: "socket round trip, threads on 2 CPUs p50", value: socketRoundTrip(crossCPU: true),
               baselineName: "the same on one CPU", baseline: socketRoundTrip(crossCPU: false), unit: "µs",
               aim: "the machine: what a hop costs")
    }
}
