// RippleLoop's EventLoop against DispatchQueue, in the same run: cross-thread `schedule` throughput and
// the cost of scheduling timers. Both sides go through the Ripple `Scheduler` protocol.
import Benchmark
import Dispatch
import Ripple
import RippleLoop

/// Schedules `count` closures from the calling thread onto `scheduler` and waits until the last has run.
func scheduleAndDrain<S: Scheduler>(_ scheduler: S, count: Int) {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        if index == count - 1 {
            scheduler.schedule { done.signal() }
        } else {
            scheduler.schedule { blackHole(index) }
        }
    }
    done.wait()
}

/// Schedules `count` one-shot timers 5 ms ahead and waits until the last has fired.
func timersAndDrain<S: Scheduler>(_ scheduler: S, count: Int) {
    let done = DispatchSemaphore(value: 0)
    let deadline = scheduler.now.advanced(by: .milliseconds(5))
    for index in 0..<count {
        if index == count - 1 {
            scheduler.schedule(after: deadline.advanced(by: .milliseconds(1))) { done.signal() }
        } else {
            scheduler.schedule(after: deadline) { blackHole(index) }
        }
    }
    done.wait()
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        timeUnits: .nanoseconds,
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 15
    )
    let closures = 100_000
    let timers = 10_000
    Benchmark("EventLoop | schedule from another thread | \(closures)") { benchmark in
        let thread = try EventLoopThread(name: "bench-loop")
        for _ in benchmark.scaledIterations { scheduleAndDrain(thread.loop, count: closures) }
        thread.stop()
    }
    Benchmark("DispatchQueue | schedule from another thread | \(closures)") { benchmark in
        let queue = DispatchQueue(label: "bench-queue")
        for _ in benchmark.scaledIterations { scheduleAndDrain(queue, count: closures) }
    }
    Benchmark("EventLoop | schedule timers | \(timers)") { benchmark in
        let thread = try EventLoopThread(name: "bench-loop")
        for _ in benchmark.scaledIterations { timersAndDrain(thread.loop, count: timers) }
        thread.stop()
    }
    Benchmark("DispatchQueue | schedule timers | \(timers)") { benchmark in
        let queue = DispatchQueue(label: "bench-queue")
        for _ in benchmark.scaledIterations { timersAndDrain(queue, count: timers) }
    }
}
