import Foundation
import Ripple
import RippleTestKit

/// A thread that runs its run loop until stopped: what schedules on a `RunLoop` need on Linux, where
/// nothing runs the main run loop.
final class RunLoopThread: @unchecked Sendable {
    /// The thread's run loop.
    let runLoop: RunLoop
    private let control: Control

    init() {
        let control = Control()
        let thread = Thread {
            // A run loop with no source returns at once; this timer keeps it running.
            let keepAlive = Timer(timeInterval: 3_600, repeats: true) { _ in }
            RunLoop.current.add(keepAlive, forMode: .default)
            control.started(RunLoop.current)
            while !control.isStopped {
                _ = RunLoop.current.run(mode: .default, before: Date(timeIntervalSinceNow: 0.02))
            }
            keepAlive.invalidate()
            control.finished.signal()
        }
        thread.start()
        runLoop = control.waitForStart()
        self.control = control
    }

    /// Waits until the run loop has run a block performed now: anything it was running when this was called
    /// (a timer's tick) has ended.
    func flush() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            runLoop.schedule { done.resume() }
        }
    }

    /// Waits until the run loop fires a timer due `delay` from now. A run loop fires its due timers in the
    /// order of their dates, so by then every timer due earlier has had its turn: a timer that should have
    /// stopped (or not started) would have fired. This needs real time — a run loop's timers run on the
    /// real clock only — but it is measured on the run loop itself, not by a sleep of the test's, which a
    /// loaded machine can end before the run loop's thread has run at all.
    ///
    /// - Parameter delay: How far ahead the marker timer is due, in seconds: several periods of the timers
    ///   under test.
    func passes(_ delay: TimeInterval) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            runLoop.schedule(after: runLoop.now.advanced(by: .init(delay))) { done.resume() }
        }
    }

    /// Stops the run loop and waits for the thread to end.
    func stop() {
        control.stop()
        control.finished.wait()
    }

    /// What the test's thread and the run loop's thread share.
    private final class Control: @unchecked Sendable {
        private let lock = NSLock()
        private var stopped = false
        private var runLoop: RunLoop?
        private let start = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)

        var isStopped: Bool { lock.withLock { stopped } }

        func started(_ runLoop: RunLoop) {
            lock.withLock { self.runLoop = runLoop }
            start.signal()
        }

        func waitForStart() -> RunLoop {
            start.wait()
            return lock.withLock { runLoop ?? RunLoop.current }
        }

        func stop() {
            lock.withLock { stopped = true }
        }
    }
}

extension OperationQueue {
    /// Waits until the queue holds no operation (Foundation's `waitUntilAllOperationsAreFinished`, on
    /// another thread), for at most `timeout` seconds; returns whether it emptied. An empty queue runs
    /// nothing more: a repetition or a delayed action scheduled on it lives only as an operation in it.
    ///
    /// - Parameter timeout: The safety limit, in seconds (a queue that never empties fails the test
    ///   instead of hanging it).
    /// - Returns: Whether the queue emptied in time.
    func emptied(timeout: TimeInterval = 10) async -> Bool {
        let emptied = Collected<Bool>()
        DispatchQueue.global().async {
            self.waitUntilAllOperationsAreFinished()
            emptied.append(true)
        }
        return await emptied.wait(for: 1, timeout: timeout)
    }
}

/// Values collected from callbacks on other threads, recorded by the kit's `TestSubscriber`: a wait wakes on
/// each value, nothing polls.
final class Collected<Value>: @unchecked Sendable {
    private let recorder = TestSubscriber<Value, Never>()

    init() {
        recorder.receive(subscription: Subscriptions.empty)
    }

    /// Everything collected so far.
    var values: [Value] { recorder.values }

    func append(_ value: Value) {
        _ = recorder.receive(value)
    }

    /// Waits until at least `count` values are collected, for at most `timeout` seconds; returns whether
    /// they were.
    func wait(for count: Int, timeout: TimeInterval = 10) async -> Bool {
        await wait(timeout: timeout) { $0.count >= count }
    }

    /// Waits until `condition` holds for the values collected, checked now and after each new value (no
    /// polling), for at most `timeout` seconds; returns whether it held.
    func wait(timeout: TimeInterval = 10, until condition: @escaping @Sendable ([Value]) -> Bool) async -> Bool {
        do {
            try await recorder.wait(timeout: .seconds(timeout)) { condition($0.values) }
            return true
        } catch {
            return false
        }
    }
}
