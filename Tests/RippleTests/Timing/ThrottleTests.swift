import Dispatch
import Testing

@testable import Ripple

@Suite("throttle(for:scheduler:latest:)")
struct ThrottleTests {
    @Test func latestEmitsTheLastValueOfEachInterval() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        scheduler.advance(by: .milliseconds(200))
        upstream.send(3)
        scheduler.advance(by: .milliseconds(300))
        upstream.send(4)
        scheduler.advance(by: .milliseconds(600))
        scheduler.advance(by: .seconds(2))
        upstream.send(5)
        scheduler.advance(by: .zero)
        #expect(
            subscriber.timeline == [
                "subscription(Throttle)@0.0s", "value(2)@0.0s", "value(4)@1.0s", "value(5)@3.1s",
            ])
        #expect(upstream.calls == [.request(.unlimited)])
        subscriber.cancel()
    }

    @Test func readsTheClockAndSchedulesAsCombineDoes() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(5))
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(10), scheduler: scheduler, latest: true).subscribe(subscriber)
        #expect(scheduler.nowReads == 2, "when made and when subscribed")
        upstream.send(1)
        #expect(scheduler.nowReads == 3)
        upstream.send(2)
        #expect(scheduler.nowReads == 4)
        #expect(scheduler.log == ["now"])
        scheduler.advance(by: .zero)
        #expect(scheduler.nowReads == 5, "the emission of a value alone notes its time")
        upstream.send(3)
        #expect(scheduler.log.count == 2 && scheduler.log[1].hasPrefix("at 10.0s ±"), "at the minimum tolerance")
        upstream.send(completion: .finished)
        #expect(scheduler.nowReads == 7)
        scheduler.advance(by: .seconds(10))
        #expect(scheduler.nowReads == 7, "a value emitted with the completion does not")
        #expect(subscriber.events == [.subscription("Throttle"), .value(2), .value(3), .finished])
    }

    @Test func aScheduledEmissionHoldsItWeaklyAndItReleasesTheDownstream() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
            upstream.send(1)
            subscriber.cancel()
        }
        #expect(weakSubscriber == nil, "cancelled: the downstream is released before the emission runs")
        scheduler.advance(by: .seconds(1))
        do {
            let subscriber = TestSubscriber<Int, Never>()
            weakSubscriber = subscriber
            upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
            upstream.send(completion: .finished)
        }
        scheduler.advance(by: .zero)
        #expect(weakSubscriber == nil, "completed: the downstream is released")
    }

    @Test func firstEmitsTheFirstValueOfEachInterval() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        scheduler.advance(by: .milliseconds(200))
        upstream.send(3)
        scheduler.advance(by: .milliseconds(300))
        upstream.send(4)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == ["subscription(Throttle)@0.0s", "value(1)@0.0s", "value(3)@1.0s"])
        subscriber.cancel()
    }

    @Test func theCompletionFollowsAWaitingValue() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(100))
        upstream.send(2)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .finished)
        upstream.send(3)
        scheduler.advance(by: .seconds(2))
        #expect(
            subscriber.timeline == [
                "subscription(Throttle)@0.0s", "value(1)@0.0s", "value(2)@1.0s", "failure(oops)@1.0s",
            ])
    }

    @Test func aCompletionWithNothingWaitingIsDeliveredAtOnce() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(subscriber)
        scheduler.advance(by: .milliseconds(700))
        upstream.send(completion: .finished)
        scheduler.advance(by: .zero)
        #expect(subscriber.timeline == ["subscription(Throttle)@0.0s", "finished@0.7s"])
    }

    @Test func valuesWithoutDemandAreDropped() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler, initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: false).subscribe(subscriber)
        for value in 1...6 {
            upstream.send(value)
            scheduler.advance(by: .seconds(1))
        }
        subscriber.request(.max(1))
        upstream.send(7)
        scheduler.advance(by: .seconds(1))
        #expect(
            subscriber.timeline == [
                "subscription(Throttle)@0.0s", "value(1)@0.0s", "value(2)@1.0s", "value(7)@6.0s",
            ])
        #expect(subscriber.demandViolations == 0)
        subscriber.cancel()
    }

    @Test func demandReturnedFromReceiveCounts() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
        for value in 1...3 {
            upstream.send(value)
            scheduler.advance(by: .seconds(1))
        }
        #expect(
            subscriber.timeline == ["subscription(Throttle)@0.0s", "value(1)@0.0s", "value(2)@1.0s", "value(3)@2.0s"])
        #expect(subscriber.demandViolations == 0)
        subscriber.cancel()
    }

    @Test func cancellationDropsTheWaitingValue() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.throttle(for: .seconds(1), scheduler: scheduler, latest: true).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .milliseconds(100))
        upstream.send(2)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscription?.cancel()
        scheduler.advance(by: .seconds(2))
        #expect(subscriber.timeline == ["subscription(Throttle)@0.0s", "value(1)@0.0s"])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(callsOnSecondSubscription(subscription, Int.self, Never.self) == [.cancel])
    }

    @Test func realTimeThrottleOnADispatchQueue() {
        let queue = DispatchQueue(label: "throttle")
        let upstream = TestPublisher<Int, Never>()
        let done = TimingTestFlag()
        let values = TimingTestList<Int>()
        let cancellable = upstream.throttle(for: .milliseconds(100), scheduler: queue, latest: true).sink { value in
            values.append(value)
            if value == 5 { done.raise() }
        }
        for value in 1...5 { upstream.send(value) }
        #expect(done.wait())
        // Normally the first value of the burst (or the latest the queue saw by then) at once and 5 an
        // interval later; a sender descheduled for longer than an interval lets more values out.
        #expect(values.all.last == 5)
        #expect(zip(values.all, values.all.dropFirst()).allSatisfy { $0 < $1 })
        cancellable.cancel()
    }
}
