import Dispatch
import Testing

@testable import Ripple

@Suite("Publishers.every and TimerPublisher")
struct TimerPublisherTests {
    typealias Time = VirtualTimeScheduler.SchedulerTimeType

    @Test func everyTicksForEachSubscriberFromItsSubscription() {
        let scheduler = VirtualTimeScheduler()
        let every = Publishers.every(.seconds(1), on: scheduler)
        let first = TimelineSubscriber<Time, Never>(scheduler)
        defer { first.cancel() }
        every.subscribe(first)
        scheduler.advance(by: .milliseconds(1_500))
        let second = TimelineSubscriber<Time, Never>(scheduler)
        defer { second.cancel() }
        every.subscribe(second)
        scheduler.advance(by: .seconds(2))
        #expect(
            first.timeline == ["subscription(Every)@0.0s", "value(1.0s)@1.0s", "value(2.0s)@2.0s", "value(3.0s)@3.0s"])
        #expect(second.timeline == ["subscription(Every)@1.5s", "value(2.5s)@2.5s", "value(3.5s)@3.5s"])
    }

    @Test func everyDropsTicksWithoutDemand() {
        let scheduler = VirtualTimeScheduler()
        let subscriber = TimelineSubscriber<Time, Never>(scheduler, initialDemand: .max(2))
        defer { subscriber.cancel() }
        Publishers.every(.seconds(1), on: scheduler).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(4_500))
        subscriber.request(.max(1))
        scheduler.advance(by: .seconds(3))
        #expect(
            subscriber.timeline == [
                "subscription(Every)@0.0s", "value(1.0s)@1.0s", "value(2.0s)@2.0s", "value(5.0s)@5.0s",
            ])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func everyStopsItsScheduleOnCancel() {
        let scheduler = LoggingScheduler()
        let every = Publishers.every(.seconds(2), tolerance: .milliseconds(1), on: scheduler, options: 8)
        #expect(every.interval == .seconds(2) && every.tolerance == .milliseconds(1) && every.options == 8)
        let subscriber = TestSubscriber<Time, Never>.oneAtATime()
        defer { subscriber.cancel() }
        every.subscribe(subscriber)
        #expect(scheduler.log == ["every 2.0s from 2.0s opt 8"])
        scheduler.advance(by: .seconds(2))
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.cancel()
        #expect(scheduler.liveRepeatingSchedules == 0)
        scheduler.advance(by: .seconds(10))
        #expect(subscriber.values == [Time(nanoseconds: 2_000_000_000)])
        #expect(
            subscription.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
                == "Every")
        #expect(subscription.flatMap { ($0 as? any CustomReflectable)?.customMirror.children.isEmpty } == true)
    }

    @Test func everyCancelledDuringSubscriptionNeverSchedules() {
        let scheduler = LoggingScheduler()
        let cancelling = AnySubscriber<Time, Never>(receiveSubscription: { $0.cancel() })
        Publishers.every(.seconds(1), on: scheduler).subscribe(cancelling)
        #expect(scheduler.log.isEmpty)
    }

    @Test func timerPublisherTicksToEverySubscriberOnceConnected() {
        let scheduler = VirtualTimeScheduler()
        let timer = scheduler.timerPublisher(every: .seconds(1))
        let unlimited = TimelineSubscriber<Time, Never>(scheduler)
        defer { unlimited.cancel() }
        let once = TimelineSubscriber<Time, Never>(scheduler, initialDemand: .max(1))
        defer { once.cancel() }
        timer.subscribe(unlimited)
        timer.subscribe(once)
        scheduler.advance(by: .seconds(2))
        #expect(unlimited.timeline == ["subscription(TimerPublisher)@0.0s"], "nothing before connect")
        let connection = timer.connect()
        scheduler.advance(by: .milliseconds(2_500))
        connection.cancel()
        connection.cancel()
        scheduler.advance(by: .seconds(3))
        #expect(unlimited.timeline == ["subscription(TimerPublisher)@0.0s", "value(3.0s)@3.0s", "value(4.0s)@4.0s"])
        #expect(once.timeline == ["subscription(TimerPublisher)@0.0s", "value(3.0s)@3.0s"])

        // Cancelling the connection detached both; a new connection serves only new subscribers.
        let late = TimelineSubscriber<Time, Never>(scheduler)
        defer { late.cancel() }
        timer.subscribe(late)
        let second = timer.connect()
        scheduler.advance(by: .seconds(1))
        second.cancel()
        #expect(late.timeline == ["subscription(TimerPublisher)@7.5s", "value(8.5s)@8.5s"])
        #expect(unlimited.timeline.count == 3)
        unlimited.cancel()
        once.cancel()
        late.cancel()
    }

    @Test func timerPublisherKeepsTheConnectionWhenItIsDroppedAndDetachesCancelledSubscribers() {
        let scheduler = LoggingScheduler()
        let timer = Publishers.TimerPublisher(
            interval: .seconds(1), tolerance: .milliseconds(2), scheduler: scheduler, options: 6)
        #expect(timer.interval == .seconds(1) && timer.tolerance == .milliseconds(2) && timer.options == 6)
        let kept = TestSubscriber<Time, Never>()
        defer { kept.cancel() }
        let cancelled = TestSubscriber<Time, Never>()
        defer { cancelled.cancel() }
        timer.subscribe(kept)
        timer.subscribe(cancelled)
        cancelled.cancel()
        weak let dropped = timer.connect() as AnyObject
        #expect(scheduler.log == ["every 1.0s from 1.0s opt 6"])
        scheduler.advance(by: .seconds(2))
        #expect(kept.values.count == 2)
        #expect(cancelled.values.isEmpty)
        #expect(scheduler.liveRepeatingSchedules == 1)
        kept.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(kept.values.count == 2)
        #expect(kept.events.first == .subscription("TimerPublisher"))
        #expect(dropped != nil, "the timer keeps its connection")
        (dropped as? any Cancellable)?.cancel()
    }

    @Test func realTimeTicksOnADispatchQueue() {
        let queue = DispatchQueue(label: "every")
        let done = TimingTestFlag()
        let ticks = TimingTestList<DispatchQueue.SchedulerTimeType>()
        let start = DispatchQueue.SchedulerTimeType(.now())
        let cancellable = Publishers.every(.milliseconds(10), on: queue).sink { time in
            ticks.append(time)
            if ticks.count == 3 { done.raise() }
        }
        #expect(done.wait())
        cancellable.cancel()
        let times = ticks.all
        #expect(times.count >= 3)
        #expect(start.distance(to: times[0]).magnitude >= 10_000_000)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 })

        let timer = queue.timerPublisher(every: .milliseconds(10))
        let connected = TimingTestFlag()
        let count = TimingTestList<Int>()
        let subscription = timer.sink { _ in
            count.append(1)
            if count.count == 2 { connected.raise() }
        }
        let connection = timer.connect()
        #expect(connected.wait())
        connection.cancel()
        subscription.cancel()
    }
}
