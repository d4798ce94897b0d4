import Dispatch
import Ripple
import RippleTestSupport
import Synchronization
import Testing

@testable import RippleLoop

@Suite("EventLoop: timers", .timeLimit(.minutes(5)))
struct EventLoopTimerTests {
    struct Firing: Sendable, Equatable {
        let deadline: Int
        let order: Int
        let firedAt: Int
    }

    @Test(.timeLimit(.minutes(2)))
    func tenThousandTimersFireInDeadlineOrder() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let fired = LockedBox<[Firing]>()
        var generator = SystemRandomNumberGenerator()
        // The loop thread waits while the timers are scheduled, so that however long that takes, they
        // are all in the heap before the first can fire.
        let scheduled = await loop.hold()
        let start = loop.now
        // Whole milliseconds within 200 ms: many equal deadlines, which must fire in scheduling order.
        let offsets = (0..<10_000).map { _ in Int.random(in: 1...200, using: &generator) }
        for (order, offset) in offsets.enumerated() {
            let deadline = start.advanced(by: .milliseconds(offset))
            loop.schedule(after: deadline) {
                fired.append(Firing(deadline: deadline.nanoseconds, order: order, firedAt: loop.now.nanoseconds))
            }
        }
        let allFired = LockedBox<CheckedContinuation<Void, Never>?>(nil)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            allFired.value = continuation
            loop.schedule(after: start.advanced(by: .milliseconds(201))) { allFired.withLock { $0.take() }?.resume() }
            scheduled.signal()
        }
        let all = fired.value
        #expect(all.count == 10_000)
        let expected = all.sorted { ($0.deadline, $0.order) < ($1.deadline, $1.order) }
        #expect(all.map(\.order) == expected.map(\.order))
        #expect(all.allSatisfy { $0.firedAt >= $0.deadline }, "no timer fires early")
        #expect(loop.timers.count == 0)
    }

    @Test func timersScheduledFromTheLoopThreadFireInDeadlineOrderToo() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let fired = LockedBox<[Int]>()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.schedule {
                let start = loop.now
                for offset in [30, 10, 20, 10, 0, 40] {
                    loop.schedule(after: start.advanced(by: .milliseconds(offset))) { fired.append(offset) }
                }
                loop.schedule(after: start.advanced(by: .milliseconds(41))) { continuation.resume() }
            }
        }
        #expect(fired.value == [0, 10, 10, 20, 30, 40])
    }

    @Test func scheduleAfterFiresAtItsDeadlineWithinLooseBounds() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        for delay in [0, 5, 20, 60] {
            let deadline = loop.now.advanced(by: .milliseconds(delay))
            let firedAt = await withCheckedContinuation {
                (continuation: CheckedContinuation<EventLoop.SchedulerTimeType, Never>) in
                loop.schedule(after: deadline, tolerance: .zero) { continuation.resume(returning: loop.now) }
            }
            let lateness = deadline.distance(to: firedAt)
            #expect(lateness >= .zero, "fired \(lateness) early for a delay of \(delay) ms")
            #expect(lateness < .seconds(2), "fired \(lateness) late for a delay of \(delay) ms")
        }
    }

    @Test func aDeadlineInThePastFiresPromptly() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let ran = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            loop.schedule(after: loop.now.advanced(by: .seconds(-10))) {
                continuation.resume(returning: loop.isInLoopThread)
            }
        }
        #expect(ran)
    }

    @Test func aRepeatingTimerTicksAtItsIntervalUntilCancelledFromInside() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let ticks = LockedBox<[Int]>()
        let cancellable = LockedBox<AnyCancellable?>(nil)
        let start = LockedBox(loop.now)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            // Scheduled on the loop thread so the cancellable is stored before the first tick can run.
            loop.schedule {
                start.value = loop.now
                let timer = loop.schedule(after: loop.now.advanced(by: .milliseconds(10)), interval: .milliseconds(10))
                {
                    ticks.append(loop.now.nanoseconds)
                    if ticks.value.count == 5 {
                        cancellable.value?.cancel()
                        continuation.resume()
                    }
                }
                cancellable.value = AnyCancellable(timer)
            }
        }
        await loop.wait(.milliseconds(60))
        let times = ticks.value
        #expect(times.count == 5, "no tick after a cancel made on the loop thread")
        for (index, time) in times.enumerated() {
            #expect(time >= start.value.advanced(by: .milliseconds(10 * (index + 1))).nanoseconds)
        }
        #expect(loop.timers.count == 0)
    }

    @Test func aRepeatingTimerCancelledFromAnotherThreadStops() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let count = Atomic<Int>(0)
        let reachedThree = LockedBox<CheckedContinuation<Void, Never>?>(nil)
        var timer: (any Cancellable)?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            reachedThree.value = continuation
            timer = loop.schedule(after: loop.now, interval: .milliseconds(5)) {
                if count.add(1, ordering: .relaxed).newValue == 3 {
                    reachedThree.withLock { $0.take() }?.resume()
                }
            }
        }
        timer?.cancel()
        let atCancel = count.load(ordering: .relaxed)
        await loop.wait(.milliseconds(30))
        let afterWait = count.load(ordering: .relaxed)
        #expect(afterWait <= atCancel + 1, "at most a tick already under way when cancel() returned")
        await loop.wait(.milliseconds(30))
        #expect(count.load(ordering: .relaxed) == afterWait)
        timer?.cancel()
    }

    @Test func releasingTheCancellableOfARepeatingTimerCancelsIt() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let count = Atomic<Int>(0)
        // The loop thread is held until the cancellable has been released, so no tick can come first.
        let released = await loop.hold()
        _ = loop.schedule(after: loop.now.advanced(by: .milliseconds(1)), interval: .milliseconds(1)) {
            count.add(1, ordering: .relaxed)
        }
        released.signal()
        await loop.wait(.milliseconds(20))
        #expect(count.load(ordering: .relaxed) == 0)
    }

    @Test func aBusyLoopSkipsMissedTicksInsteadOfBursting() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let ticks = LockedBox<[Int]>()
        let start = loop.now
        var timer: (any Cancellable)?
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            timer = loop.schedule(after: start.advanced(by: .milliseconds(10)), interval: .milliseconds(10)) {
                ticks.append(loop.now.nanoseconds)
                if ticks.value.count == 1 {
                    // Keep the loop thread busy past four more ticks' deadlines.
                    while loop.now < start.advanced(by: .milliseconds(55)) {}
                }
                if ticks.value.count == 2 {
                    continuation.resume()
                }
            }
        }
        timer?.cancel()
        let times = ticks.value
        #expect(times.count >= 2)
        #expect(times[1] >= start.advanced(by: .milliseconds(60)).nanoseconds, "the ticks at 20-50 ms were skipped")
    }

    @Test func cancelledTimersNeverFire() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let fired = LockedBox<[Int]>()
        let released = LockedBox<[String]>()
        // The loop thread waits until every timer is scheduled and the first cancels are made, however
        // long that takes; then, before any timer can fire, it cancels more from the loop thread.
        let cancelFromLoop = LockedBox<[AnyCancellable]>([])
        let ready = await loop.hold {
            for cancellable in cancelFromLoop.value {
                cancellable.cancel()
            }
        }
        let start = loop.now
        let total = 2_000
        var cancellables: [AnyCancellable] = []
        for index in 0..<total {
            let sentinel = ReleaseSentinel("\(index)", releases: released)
            let deadline = start.advanced(by: .milliseconds(10 + index % 50))
            cancellables.append(
                loop.scheduleCancellable(after: deadline) {
                    _ = sentinel
                    fired.append(index)
                })
        }
        // Even indices are cancelled from this thread...
        for index in stride(from: 0, to: total, by: 2) {
            cancellables[index].cancel()
        }
        // ...which is half the heap: the cancelled entries are removed and released at once.
        #expect(loop.timers.count == total / 2)
        #expect(released.value.count == total / 2)
        // Indices 1 mod 4 are cancelled on the loop thread.
        cancelFromLoop.value = cancellables.enumerated().filter { $0.offset % 4 == 1 }.map(\.element)
        ready.signal()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.schedule(after: start.advanced(by: .milliseconds(61))) { continuation.resume() }
        }
        await loop.flush()
        let expected = Array(stride(from: 3, to: total, by: 4))
        #expect(fired.value.sorted() == expected)
        #expect(loop.timers.count == 0)
        // Cancelling again, or after firing, does nothing.
        cancellables.forEach { $0.cancel() }
        cancellables.removeAll()
        cancelFromLoop.value = []
        #expect(released.value.count == total)
    }

    @Test func aCancellableTimerThatIsNotCancelledFiresOnce() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let count = Atomic<Int>(0)
        let cancellable = loop.scheduleCancellable(after: loop.now.advanced(by: .milliseconds(2))) {
            count.add(1, ordering: .relaxed)
        }
        await loop.wait(.milliseconds(20))
        #expect(count.load(ordering: .relaxed) == 1)
        cancellable.cancel()
    }

    @Test func cancellingTheEarliestTimerOnTheLoopThreadRearmsOrStopsTheLoopTimer() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let fired = LockedBox<[String]>()
        let start = loop.now
        let late = start.advanced(by: .seconds(60))
        let early = start.advanced(by: .seconds(30))
        let lateTimer = loop.scheduleCancellable(after: late) { fired.append("late") }
        let earlyTimer = loop.scheduleCancellable(after: early) { fired.append("early") }
        // Two turns: the wake-up the insertions sent has armed the timer once the first has run.
        await loop.flush()
        #expect(await loop.perform { loop.timerArmedFor } == early.nanoseconds)
        // Cancelling a timer that is not the earliest changes nothing.
        let afterLate = await loop.perform { () -> (Int, Int) in
            lateTimer.cancel()
            return (loop.timerArmedFor, loop.timers.count)
        }
        #expect(afterLate.0 == early.nanoseconds)
        #expect(afterLate.1 == 2, "a cancelled entry behind the front stays (lazily)")
        // Cancelling the earliest takes it and the cancelled one behind it off the heap: nothing is left,
        // and the loop timer stops (the loop waits without a timeout).
        let afterEarly = await loop.perform { () -> (Int, Int) in
            earlyTimer.cancel()
            return (loop.timerArmedFor, loop.timers.count)
        }
        #expect(afterEarly.0 == Int.max)
        #expect(afterEarly.1 == 0)
        #expect(fired.value.isEmpty)
    }

    @Test func aTimerBehindACancelledEarlierOneStillFiresOnTime() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let fired = LockedBox<[String]>()
        let armedAfterCancel = LockedBox<Int?>(nil)
        let firstTimer = LockedBox<AnyCancellable?>(nil)
        // The loop thread waits while both are scheduled, then cancels the first before it can fire.
        let ready = await loop.hold {
            firstTimer.value?.cancel()
            armedAfterCancel.value = loop.timerArmedFor
        }
        let start = loop.now
        firstTimer.value = loop.scheduleCancellable(after: start.advanced(by: .milliseconds(10))) {
            fired.append("first")
        }
        let second = start.advanced(by: .milliseconds(30))
        let secondTimer = loop.scheduleCancellable(after: second) { fired.append("second at \(loop.now >= second)") }
        ready.signal()
        await loop.wait(.milliseconds(60))
        // Re-armed for the second timer's deadline at the cancellation.
        #expect(armedAfterCancel.value == second.nanoseconds)
        #expect(fired.value == ["second at true"])
        secondTimer.cancel()
        #expect(await loop.perform { loop.timerArmedFor } == Int.max)
    }

    @Test func aCancellationFromAnotherThreadStaysLazy() async throws {
        let owner = try EventLoopThread()
        defer { owner.stop() }
        let loop = owner.loop
        let deadline = loop.now.advanced(by: .seconds(60))
        let timer = loop.scheduleCancellable(after: deadline) {}
        await loop.flush()
        timer.cancel()
        // The entry stays, marked, and the loop timer stays armed (it fires for nothing, or a later
        // cancellation on the loop thread clears it).
        #expect(loop.timers.count == 1)
        #expect(await loop.perform { loop.timerArmedFor } == deadline.nanoseconds)
    }
}
