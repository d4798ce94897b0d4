import Dispatch
import Foundation
import Glibc
import Ripple
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleLoop

@Suite("EventLoop: stopping and lifetime", .timeLimit(.minutes(5)))
struct EventLoopLifecycleTests {
    @Test func stopRunsClosuresScheduledBeforeItAndDropsTimersAndLaterClosures() throws {
        let loop = try EventLoop()
        let log = LockedBox<[Int]>()
        let released = LockedBox<[String]>()
        for index in 0..<100 {
            loop.schedule { log.append(index) }
        }
        let pendingTimer = ReleaseSentinel("timer", releases: released)
        loop.schedule(after: loop.now.advanced(by: .milliseconds(1))) {
            _ = pendingTimer
            log.append(-1)
        }
        _ = consume pendingTimer
        let repeating = loop.schedule(after: loop.now, interval: .milliseconds(1)) { log.append(-2) }
        loop.stop()
        #expect(released.value == ["timer"], "pending timers are dropped by stop()")
        loop.stop()
        let late = ReleaseSentinel("late closure", releases: released)
        loop.schedule {
            _ = late
            log.append(-3)
        }
        loop.schedule(after: loop.now) {
            _ = late
            log.append(-4)
        }
        #expect(released.value.count == 1)
        _ = consume late
        #expect(released.value == ["timer", "late closure"], "closures scheduled after stop() are released at once")

        // The loop was stopped before it ran: `run()` does the final work and returns.
        try loop.run()
        #expect(log.value == Array(0..<100))
        #expect(released.value.count == 2)
        #expect(loop.closeState == (closed: true, status: 0))
        repeating.cancel()
    }

    @Test func stoppingARunningLoopRunsWhatWasQueuedBeforeTheStop() async throws {
        let owner = try EventLoopThread(name: "a name longer than fifteen bytes")
        let loop = owner.loop
        let log = LockedBox<[Int]>()
        let hold = DispatchSemaphore(value: 0)
        loop.schedule { hold.wait() }
        for index in 0..<1_000 {
            loop.schedule {
                log.append(index)
                // Scheduled from a closure that runs after stop(): dropped.
                loop.schedule { log.append(-1) }
            }
        }
        loop.stop()
        loop.schedule { log.append(-2) }
        hold.signal()
        owner.stop()
        #expect(log.value == Array(0..<1_000))
        #expect(loop.closeState == (closed: true, status: 0))
        owner.stop()
    }

    @Test func stopFromInsideALoopCallback() async throws {
        let owner = try EventLoopThread()
        let loop = owner.loop
        let log = LockedBox<[String]>()
        loop.schedule {
            log.append("a")
            loop.stop()
            log.append("b")
        }
        loop.schedule { log.append("c") }
        owner.stop()
        #expect(log.value == ["a", "b", "c"])
    }

    @Test func aTimerThatStopsTheLoopDropsTheOtherDueTimers() throws {
        let loop = try EventLoop()
        let log = LockedBox<[String]>()
        let due = loop.now.advanced(by: .seconds(-1))
        loop.schedule(after: due) {
            log.append("first")
            loop.stop()
        }
        loop.schedule(after: due) { log.append("second") }
        loop.schedule(after: due.advanced(by: .nanoseconds(1))) { log.append("third") }
        try loop.run()
        #expect(log.value == ["first"])
        #expect(loop.closeState == (closed: true, status: 0))
    }

    @Test(.timeLimit(.minutes(5)))
    func aThousandLoopsCreatedAndStoppedReleaseEverything() async throws {
        for round in 0..<1_000 {
            let owner = try EventLoopThread(name: "round")
            let loop = owner.loop
            let (watched, peer) = try closeOnExecSocketPair()
            let cancellable = loop.poll(watched, for: .readable).sink(
                receiveCompletion: { _ in }, receiveValue: { _ in })
            loop.schedule(after: loop.now.advanced(by: .seconds(60))) {}
            let ticks = loop.schedule(after: loop.now.advanced(by: .seconds(60)), interval: .seconds(1)) {}
            if round.isMultiple(of: 2) {
                await loop.flush()
            }
            owner.stop()
            #expect(loop.closeState == (closed: true, status: 0))
            ticks.cancel()
            cancellable.cancel()
            close(watched)
            close(peer)
        }
    }

    @Test func aThousandLoopsThatNeverRanAreClosedOnRelease() throws {
        for _ in 0..<1_000 {
            let loop = try EventLoop()
            loop.schedule {}
            loop.schedule(after: loop.now.advanced(by: .seconds(60))) {}
            _ = loop.schedule(after: loop.now, interval: .seconds(1)) {}
        }
    }

    @Test func releasingTheThreadStopsTheLoopAndWaitsForIt() async throws {
        let loop: EventLoop
        do {
            let owner = try EventLoopThread()
            loop = owner.loop
            await loop.flush()
        }
        #expect(loop.closeState == (closed: true, status: 0))
    }

    @Test func releasingTheThreadOnItsOwnLoopThreadDoesNotDeadlock() async throws {
        let holder = LockedBox<EventLoopThread?>(try EventLoopThread())
        guard let loop = holder.value?.loop else { return }
        let released = LockedBox<[String]>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.schedule {
                holder.value = nil
                continuation.resume()
            }
        }
        let sentinel = ReleaseSentinel("dropped", releases: released)
        loop.schedule { _ = sentinel }
        _ = consume sentinel
        #expect(released.value == ["dropped"], "the loop has stopped")
    }

    @Test func errorsDescribeThemselves() {
        #expect(EventLoopError.libuv(code: -9).description == "EBADF: bad file descriptor")
        #expect(EventLoopError.alreadyRunning.description == "the event loop is already running")
        #expect(
            EventLoopError.threadCreationFailed(errno: 11).description
                == "the event loop's thread could not be created (errno 11)")
    }

    @Test func aLoopThatFailedToStartIsStopped() {
        // The shared loop's fallback: a loop closed from the start drops everything.
        let loop = EventLoop(openingLibUV: ())
        loop.stop()
        #expect(loop.startupError == nil)
        let released = LockedBox<[String]>()
        let sentinel = ReleaseSentinel("dropped", releases: released)
        loop.schedule { _ = sentinel }
        _ = consume sentinel
        #expect(released.value.count == 1)
    }
}

@Suite("EventLoop: time", .timeLimit(.minutes(5)))
struct EventLoopTimeTests {
    typealias Time = EventLoop.SchedulerTimeType
    typealias Stride = EventLoop.SchedulerTimeType.Stride

    @Test func literalsAreSeconds() {
        let two: Stride = 2
        let half: Stride = 0.5
        #expect(two == .seconds(2))
        #expect(two.magnitude == 2_000_000_000)
        #expect(half == .milliseconds(500))
        #expect(Stride.seconds(1.5) == .microseconds(1_500_000))
        #expect(Stride.nanoseconds(7).magnitude == 7)
        #expect(Stride(exactly: 3) == .seconds(3))
        #expect(Stride(exactly: Int.max) == nil)
        #expect(Stride(exactly: UInt64.max) == nil)
        #expect(Stride.seconds(Double.nan) == .zero)
        #expect(Stride.seconds(1e300).magnitude == .max)
        #expect(Stride.seconds(-1e300).magnitude == .min)
        #expect(Stride.seconds(Int.max).magnitude == .max)
        #expect(Stride.milliseconds(Int.min).magnitude == .min)
        #expect(half.description == "0.5s")
    }

    @Test func arithmeticClampsInsteadOfOverflowing() {
        var stride: Stride = .seconds(1)
        stride += .milliseconds(500)
        #expect(stride == .milliseconds(1_500))
        stride -= .seconds(1)
        #expect(stride == .milliseconds(500))
        stride *= .nanoseconds(2)
        #expect(stride == .seconds(1))
        #expect(Stride.nanoseconds(.max) + .nanoseconds(1) == .nanoseconds(.max))
        #expect(Stride.nanoseconds(.min) - .nanoseconds(1) == .nanoseconds(.min))
        #expect(Stride.nanoseconds(1) - .nanoseconds(.min) == .nanoseconds(.max))
        #expect(Stride.nanoseconds(.max) * .nanoseconds(2) == .nanoseconds(.max))
        #expect(Stride.nanoseconds(.max) * .nanoseconds(-2) == .nanoseconds(.min))
        #expect(-Stride.seconds(1) == .seconds(-1))
        #expect(Stride.seconds(1) < .seconds(2))
    }

    @Test func timesAdvanceAndMeasure() throws {
        let start = Time(nanoseconds: 1_000)
        let later = start.advanced(by: .microseconds(2))
        #expect(later.nanoseconds == 3_000)
        #expect(start.distance(to: later) == .microseconds(2))
        #expect(Time(nanoseconds: .max).advanced(by: .seconds(1)).nanoseconds == .max)
        #expect(later.description == "3e-06s")
        let decoded = try JSONDecoder().decode(Time.self, from: JSONEncoder().encode(later))
        #expect(decoded == later)
        let stride = try JSONDecoder().decode(Stride.self, from: JSONEncoder().encode(Stride.milliseconds(3)))
        #expect(stride == .milliseconds(3))
    }

    @Test func theClockIsMonotonicAndTheToleranceAMillisecond() {
        let loop = EventLoop.shared
        let first = loop.now
        let second = loop.now
        #expect(first <= second)
        #expect(loop.minimumTolerance == .milliseconds(1))
    }
}
