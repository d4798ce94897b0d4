import Ripple
import RippleTestKit
import Testing

/// The virtual-time scheduler: time order, actions scheduled while advancing, repeats, its time type.
@Suite struct VirtualTimeSchedulerTests {
    final class Log: @unchecked Sendable {
        private let lock = Lock()
        private var entries: [String] = []
        func append(_ entry: String) { lock.withLock { entries.append(entry) } }
        var all: [String] { lock.withLock { entries } }
    }

    @Test func runsActionsInTimeThenSchedulingOrder() {
        let scheduler = VirtualTimeScheduler()
        let log = Log()
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(2))) { log.append("b@\(scheduler.now)") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1))) { log.append("a@\(scheduler.now)") }
        scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), tolerance: .zero) { log.append("a2") }
        scheduler.schedule { log.append("now") }
        #expect(log.all.isEmpty)
        #expect(scheduler.scheduledCount == 4)
        scheduler.advance()
        #expect(log.all == ["now"])
        scheduler.advance(by: .milliseconds(999))
        #expect(log.all == ["now"])
        scheduler.advance(by: .milliseconds(1))
        #expect(log.all == ["now", "a@1.0s", "a2"])
        scheduler.run()
        #expect(log.all == ["now", "a@1.0s", "a2", "b@2.0s"])
        #expect(scheduler.now == .init(nanoseconds: 2_000_000_000))
        scheduler.advance(to: .init(nanoseconds: 1))
        #expect(scheduler.now == .init(nanoseconds: 2_000_000_000), "time never goes back")
    }

    @Test func actionsScheduledWhileAdvancingRunWhenDue() {
        let scheduler = VirtualTimeScheduler()
        let log = Log()
        scheduler.schedule(after: scheduler.now.advanced(by: 1)) {
            log.append("first")
            scheduler.schedule(after: scheduler.now.advanced(by: 0.5)) { log.append("nested") }
            scheduler.schedule(after: scheduler.now.advanced(by: 5)) { log.append("late") }
        }
        scheduler.advance(by: 2)
        #expect(log.all == ["first", "nested"])
        #expect(scheduler.now.nanoseconds == 2_000_000_000)
    }

    @Test func repeatingActionsUntilCancelled() {
        let scheduler = VirtualTimeScheduler()
        let log = Log()
        let cancellable = scheduler.schedule(after: scheduler.now.advanced(by: .seconds(1)), interval: .seconds(2)) {
            log.append("\(scheduler.now)")
        }
        scheduler.advance(by: .seconds(6))
        #expect(log.all == ["1.0s", "3.0s", "5.0s"])
        cancellable.cancel()
        scheduler.advance(by: .seconds(10))
        #expect(log.all.count == 3)
        let other = scheduler.schedule(after: scheduler.now, interval: .seconds(1), tolerance: .zero) {
            log.append("x")
        }
        scheduler.advance()
        other.cancel()
        scheduler.run()
        #expect(log.all.last == "x")
    }

    @Test func cancellingARepeatingActionReleasesItAtOnce() {
        final class Token: Sendable {}
        let scheduler = VirtualTimeScheduler()
        weak var released: Token?
        var cancellable: (any Cancellable)?
        do {
            let token = Token()
            released = token
            cancellable = scheduler.schedule(after: scheduler.now.advanced(by: 1), interval: 1) { _ = token }
        }
        #expect(released != nil, "the scheduler keeps the action while it repeats")
        #expect(scheduler.scheduledCount == 1)
        cancellable?.cancel()
        #expect(released == nil, "released at cancel, not when its next run falls due")
        #expect(scheduler.scheduledCount == 0)
        scheduler.advance(by: 5)
        #expect(scheduler.scheduledCount == 0)
    }

    @Test func aRepeatingActionThatCancelsItselfRunsNoMore() {
        let scheduler = VirtualTimeScheduler()
        let log = Log()
        let box = LockedCancellable()
        box.value = scheduler.schedule(after: scheduler.now, interval: 1) {
            log.append("\(scheduler.now)")
            if log.all.count == 2 { box.value?.cancel() }
        }
        scheduler.advance(by: 10)
        #expect(log.all == ["0.0s", "1.0s"])
        #expect(scheduler.scheduledCount == 0)
    }

    final class LockedCancellable: @unchecked Sendable {
        private let lock = Lock()
        private var stored: (any Cancellable)?
        var value: (any Cancellable)? {
            get { lock.withLock { stored } }
            set { lock.withLock { stored = newValue } }
        }
    }

    @Test func strideArithmeticAndLiterals() {
        typealias Stride = VirtualTimeScheduler.SchedulerTimeType.Stride
        #expect(Stride.seconds(1) == 1)
        #expect(Stride.seconds(0.5) == 0.5)
        #expect(Stride.milliseconds(1500) == .seconds(1.5))
        #expect(Stride.microseconds(1).magnitude == 1_000)
        #expect(Stride.nanoseconds(5).magnitude == 5)
        #expect(Stride(exactly: 2) == .seconds(2))
        #expect(Stride(exactly: UInt64.max) == nil)
        #expect(Stride.seconds(Double.infinity).magnitude == .max)
        var stride = Stride.seconds(1)
        stride += .seconds(1)
        stride -= .milliseconds(500)
        stride *= 2
        #expect(stride.magnitude == 3_000_000_000_000_000_000)
        #expect(Stride.seconds(1) - .seconds(2) < .zero)
        #expect(Stride.seconds(1).description == "1.0s")
        let start = VirtualTimeScheduler.SchedulerTimeType(nanoseconds: 10)
        #expect(start.distance(to: start.advanced(by: .nanoseconds(5))) == .nanoseconds(5))
        #expect(VirtualTimeScheduler().minimumTolerance == .zero)
    }
}
