import Dispatch
import Synchronization

@testable import Ripple

/// A subscriber that records each signal with the virtual time it arrived at, as
/// `"value(1)@1.5s"`, `"finished@2.0s"`, `"subscription(Delay)@0.0s"`, and checks demand. It keeps its
/// subscription until the completion or its cancel, as Combine's subscribers do.
final class TimelineSubscriber<Input: Equatable, Failure: Error & Equatable>: Subscriber, @unchecked Sendable {
    private let lock = Lock()
    private let scheduler: VirtualTimeScheduler
    private let initialDemand: Subscribers.Demand?
    private let onValue: (Input) -> Subscribers.Demand
    private var entries: [String] = []
    private var storedSubscription: (any Subscription)?
    private var outstanding = Subscribers.Demand.none
    private var violations = 0

    init(
        _ scheduler: VirtualTimeScheduler,
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none }
    ) {
        self.scheduler = scheduler
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    /// Asks for one value at first and one more after each value.
    static func oneAtATime(_ scheduler: VirtualTimeScheduler) -> TimelineSubscriber {
        TimelineSubscriber(scheduler, initialDemand: .max(1), onValue: { _ in .max(1) })
    }

    var timeline: [String] { lock.withLock { entries } }
    var demandViolations: Int { lock.withLock { violations } }
    var subscription: (any Subscription)? { lock.withLock { storedSubscription } }

    func request(_ demand: Subscribers.Demand) {
        let subscription = lock.withLock { () -> (any Subscription)? in
            outstanding += demand
            return storedSubscription
        }
        subscription?.request(demand)
    }

    /// Cancels and releases the subscription, as Combine's subscribers do.
    func cancel() {
        lock.withLock { () -> (any Subscription)? in
            defer { storedSubscription = nil }
            return storedSubscription
        }?.cancel()
    }

    func receive(subscription: any Subscription) {
        let now = scheduler.now
        lock.withLock {
            storedSubscription = subscription
            entries.append("subscription(\(subscription))@\(now)")
            if let initialDemand { outstanding += initialDemand }
        }
        if let initialDemand { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let now = scheduler.now
        lock.withLock {
            if outstanding == .none { violations += 1 } else { outstanding -= 1 }
            entries.append("value(\(input))@\(now)")
        }
        let more = onValue(input)
        lock.withLock { outstanding += more }
        return more
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let now = scheduler.now
        let entry: String
        switch completion {
        case .finished: entry = "finished@\(now)"
        case .failure(let error): entry = "failure(\(error))@\(now)"
        }
        // Released at the end, as Combine's subscribers release theirs.
        let released = lock.withLock { () -> (any Subscription)? in
            entries.append(entry)
            defer { storedSubscription = nil }
            return storedSubscription
        }
        withExtendedLifetime(released) {}
    }
}

/// A scheduler on virtual time that logs how it is asked to schedule and counts the repeating
/// schedules not yet cancelled. Its options are an `Int`, so tests can check they are passed on.
final class LoggingScheduler: Scheduler, @unchecked Sendable {
    typealias SchedulerTimeType = VirtualTimeScheduler.SchedulerTimeType
    typealias SchedulerOptions = Int

    let clock = VirtualTimeScheduler()
    private let lock = Lock()
    private var entries: [String] = []
    private var repeating = 0
    private var reads = 0

    var now: SchedulerTimeType {
        lock.withLock { reads += 1 }
        return clock.now
    }
    /// How many times `now` was read.
    var nowReads: Int { lock.withLock { reads } }
    var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(7) }

    /// Every scheduling call, e.g. `"now"`, `"at 1.0s ±0.0s opt 3"`, `"every 1.0s from 1.0s"`.
    var log: [String] { lock.withLock { entries } }
    /// Repeating schedules started and not cancelled.
    var liveRepeatingSchedules: Int { lock.withLock { repeating } }

    func advance(by stride: SchedulerTimeType.Stride) { clock.advance(by: stride) }

    private func note(_ entry: String, _ options: Int?) {
        lock.withLock { entries.append(options.map { "\(entry) opt \($0)" } ?? entry) }
    }

    func schedule(options: Int?, _ action: @escaping () -> Void) {
        note("now", options)
        clock.schedule(action)
    }

    func schedule(
        after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride, options: Int?,
        _ action: @escaping () -> Void
    ) {
        note("at \(date) ±\(tolerance)", options)
        clock.schedule(after: date, tolerance: tolerance, action)
    }

    func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: Int?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        note("every \(interval) from \(date)", options)
        lock.withLock { repeating += 1 }
        let inner = clock.schedule(after: date, interval: interval, tolerance: tolerance, action)
        let once = Atomic<Bool>(false)
        return AnyCancellable { [weak self] in
            guard !once.exchange(true, ordering: .relaxed) else { return }
            inner.cancel()
            guard let self else { return }
            lock.withLock { repeating -= 1 }
        }
    }
}

/// A publisher that answers each request synchronously, from inside `request`, by sending the next
/// numbers (recursing through whatever the subscriber does), then finishes after `count` values.
/// It does not protect itself against re-entrancy: operators must not grow the stack with it.
struct RecursiveCountingPublisher: Publisher {
    typealias Output = Int
    typealias Failure = Never
    let count: Int

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscription(count: count, downstream: subscriber))
    }

    private final class Subscription<Downstream: Subscriber>: Ripple.Subscription, @unchecked Sendable
    where Downstream.Input == Int, Downstream.Failure == Never {
        let count: Int
        let downstream: Downstream
        var next = 1
        var finished = false
        init(count: Int, downstream: Downstream) {
            self.count = count
            self.downstream = downstream
        }

        func request(_ demand: Subscribers.Demand) {
            var demand = demand
            while demand > 0, next <= count {
                let value = next
                next += 1
                demand -= 1
                demand += downstream.receive(value)
            }
            if next > count, !finished {
                finished = true
                downstream.receive(completion: .finished)
            }
        }

        func cancel() {}
    }
}

/// Counts deliveries that overlap (a subscriber entered while another call to it is running).
final class OverlapDetector: @unchecked Sendable {
    private let inside = Atomic<Int>(0)
    private let overlapsCount = Atomic<Int>(0)
    private let callsCount = Atomic<Int>(0)

    var overlaps: Int { overlapsCount.load(ordering: .relaxed) }
    var calls: Int { callsCount.load(ordering: .relaxed) }

    func enter() {
        callsCount.add(1, ordering: .relaxed)
        if inside.add(1, ordering: .acquiringAndReleasing).newValue > 1 { overlapsCount.add(1, ordering: .relaxed) }
    }

    func leave() {
        inside.subtract(1, ordering: .acquiringAndReleasing)
    }
}

/// A one-shot signal to wait for with a timeout (for real-time tests; never used to pass time).
final class TimingTestFlag: @unchecked Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func raise() { semaphore.signal() }

    /// Waits until raised; `false` after `seconds`.
    func wait(seconds: Double = 5) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

/// A thread-safe list, for collecting what callbacks saw.
final class TimingTestList<Element>: @unchecked Sendable {
    private let lock = Lock()
    private var elements: [Element] = []

    func append(_ element: Element) { lock.withLock { elements.append(element) } }
    var all: [Element] { lock.withLock { elements } }
    var count: Int { lock.withLock { elements.count } }
}

/// Hands `subscriber` (an operator's inner subscriber, already subscribed) a second subscription and
/// returns what that subscription was asked to do (Combine cancels it).
func callsOnSecondSubscription<Input, Failure: Error>(_ subscriber: Any?, _: Input.Type, _: Failure.Type)
    -> [TestPublisher<Input, Failure>.Call]?
{
    guard let subscriber = subscriber as? any Subscriber<Input, Failure> else { return nil }
    let extra = TestPublisher<Input, Failure>()
    subscriber.receive(subscription: TestPublisher<Input, Failure>.TestSubscription(publisher: extra))
    return extra.calls
}
