import Ripple
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleLoop

@Suite("EventLoop: schedule", .timeLimit(.minutes(5)))
struct EventLoopScheduleTests {
    /// Per-producer counters, touched only on the loop thread (atomics only to keep them `Sendable`).
    final class Tally: Sendable {
        let nextOfFirst = Atomic<Int>(0)
        let nextOfSecond = Atomic<Int>(0)
        let outOfOrder = Atomic<Int>(0)
        let offLoopThread = Atomic<Int>(0)

        func record(producer: Int, index: Int, loop: EventLoop) {
            if producer == 0 {
                check(nextOfFirst, index: index)
            } else {
                check(nextOfSecond, index: index)
            }
            if index % 1024 == 0, !loop.isInLoopThread {
                offLoopThread.add(1, ordering: .relaxed)
            }
        }

        private func check(_ next: borrowing Atomic<Int>, index: Int) {
            let expected = next.load(ordering: .relaxed)
            if expected != index {
                outOfOrder.add(1, ordering: .relaxed)
            }
            next.store(expected + 1, ordering: .relaxed)
        }
    }

    @Test(.timeLimit(.minutes(5)))
    func aMillionClosuresFromTwoThreadsRunOnceEachInOrderPerThread() async throws {
        let owner = try EventLoopThread(name: "million")
        defer { owner.stop() }
        let loop = owner.loop
        let perProducer = 500_000
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<2 {
                group.addTask {
                    for index in 0..<perProducer {
                        loop.schedule { tally.record(producer: producer, index: index, loop: loop) }
                    }
                }
            }
        }
        // Both producers have finished scheduling: one more closure runs after all of theirs.
        await loop.flush()
        #expect(tally.nextOfFirst.load(ordering: .relaxed) == perProducer)
        #expect(tally.nextOfSecond.load(ordering: .relaxed) == perProducer)
        #expect(tally.outOfOrder.load(ordering: .relaxed) == 0)
        #expect(tally.offLoopThread.load(ordering: .relaxed) == 0)
    }

    @Test func closuresRunOnTheLoopThreadOnly() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        #expect(!loop.isInLoopThread)
        let onLoop = await loop.onLoop { loop.isInLoopThread }
        #expect(onLoop)
    }

    @Test func aClosureScheduledFromInsideACallbackRunsAfterItReturns() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let log = LockedBox<[String]>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.schedule {
                log.append("outer begins")
                loop.schedule {
                    log.append("inner")
                    loop.schedule(after: loop.now) {
                        log.append("timer from inner")
                        continuation.resume()
                    }
                }
                log.append("outer ends")
            }
        }
        #expect(log.value == ["outer begins", "outer ends", "inner", "timer from inner"])
    }

    @Test func runOnLoopThreadRunsAtOnceThereAndIsScheduledElsewhere() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let log = LockedBox<[String]>()
        // On the loop thread: before the call returns, ahead of a closure scheduled just before it.
        await loop.onLoop {
            loop.schedule { log.append("scheduled before") }
            loop.runOnLoopThread { log.append("at once, on the loop thread: \(loop.isInLoopThread)") }
            log.append("after the call")
        }
        await loop.flush()
        #expect(log.value == ["at once, on the loop thread: true", "after the call", "scheduled before"])
        // Elsewhere: queued behind what this thread scheduled before, run on the loop thread.
        log.value = []
        let held = await loop.hold()
        loop.schedule { log.append("scheduled before") }
        loop.runOnLoopThread { log.append("queued, on the loop thread: \(loop.isInLoopThread)") }
        log.append("after the call")
        held.signal()
        await loop.flush()
        #expect(log.value == ["after the call", "scheduled before", "queued, on the loop thread: true"])
    }

    @Test func runOnLoopThreadDropsTheActionOfAStoppedLoop() throws {
        let loop = try EventLoop()
        let releases = LockedBox<[String]>()
        loop.stop()
        try loop.run()
        do {
            let sentinel = ReleaseSentinel("action", releases: releases)
            loop.runOnLoopThread {
                _ = sentinel
                releases.append("ran")
            }
        }
        // Not run, and not kept.
        #expect(releases.value == ["action"])
    }

    @Test func runOnTheCallersThreadUntilStopped() throws {
        let loop = try EventLoop()
        let log = LockedBox<[String]>()
        loop.schedule {
            log.append("first on loop thread: \(loop.isInLoopThread)")
            loop.schedule {
                log.append("second")
                loop.stop()
                loop.schedule { log.append("after stop: dropped") }
            }
        }
        try loop.run()
        #expect(log.value == ["first on loop thread: true", "second"])
        #expect(!loop.isInLoopThread)
        #expect(loop.closeState == (closed: true, status: 0))
        // A closed loop returns at once and drops new work.
        try loop.run()
        loop.schedule { log.append("never") }
        #expect(log.value.count == 2)
    }

    @Test func runWhileRunningThrows() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        await loop.flush()
        #expect(throws: EventLoopError.alreadyRunning) { try loop.run() }
        let nested = await loop.onLoop { () -> EventLoopError? in
            do throws(EventLoopError) {
                try loop.run()
                return nil
            } catch {
                return error
            }
        }
        #expect(nested == .alreadyRunning)
    }

    @Test func theSharedLoopIsOneRunningLoop() async {
        let shared = EventLoop.shared
        #expect(shared === EventLoop.shared)
        #expect(!shared.isInLoopThread)
        let onLoop = await shared.onLoop { EventLoop.shared.isInLoopThread }
        #expect(onLoop)
    }
}
