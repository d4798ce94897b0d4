import Dispatch
import Testing

@testable import Ripple

@Suite("receive(on:)")
struct ReceiveOnTests {
    @Test func deliversValuesAndCompletionWhenTheSchedulerRuns() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TimelineSubscriber<Int, TestError>(scheduler)
        defer { subscriber.cancel() }
        upstream.receive(on: scheduler).subscribe(subscriber)
        #expect(subscriber.timeline == ["subscription(ReceiveOn)@0.0s"])

        upstream.send(1)
        upstream.send(2)
        #expect(subscriber.timeline.count == 1, "nothing before the scheduler runs")
        scheduler.advance(by: .milliseconds(250))
        upstream.send(3)
        upstream.send(completion: .failure(.oops))
        upstream.send(4)
        scheduler.advance(by: .seconds(1))

        #expect(
            subscriber.timeline == [
                "subscription(ReceiveOn)@0.0s", "value(1)@0.0s", "value(2)@0.0s", "value(3)@0.25s",
                "failure(oops)@0.25s",
            ])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func passesOptionsToTheScheduler() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.receive(on: scheduler, options: 3).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        scheduler.advance(by: .zero)
        #expect(scheduler.log == ["now opt 3", "now opt 3"])
        #expect(subscriber.events == [.subscription("ReceiveOn"), .value(1), .finished])
    }

    @Test func honoursDemandAndPassesReturnedDemandUpstream() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>.oneAtATime(scheduler)
        defer { subscriber.cancel() }
        upstream.receive(on: scheduler).subscribe(subscriber)
        upstream.send(1)
        scheduler.advance(by: .seconds(1))
        upstream.send(2)
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == ["subscription(ReceiveOn)@0.0s", "value(1)@0.0s", "value(2)@1.0s"])
        #expect(upstream.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func cancellationDropsScheduledSignals() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TimelineSubscriber<Int, Never>(scheduler)
        defer { subscriber.cancel() }
        upstream.receive(on: scheduler).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        subscriber.cancel()
        subscriber.cancel()
        scheduler.advance(by: .seconds(1))
        #expect(subscriber.timeline == ["subscription(ReceiveOn)@0.0s"])
        #expect(upstream.calls == [.request(.unlimited)], "the upstream had completed: nothing to cancel")

        let second = TestPublisher<Int, Never>()
        let other = TimelineSubscriber<Int, Never>(scheduler)
        defer { other.cancel() }
        second.receive(on: scheduler).subscribe(other)
        second.send(1)
        other.cancel()
        second.send(2)
        scheduler.advance(by: .seconds(1))
        #expect(other.timeline == ["subscription(ReceiveOn)@1.0s"])
        #expect(second.calls == [.request(.unlimited), .cancel])
    }

    @Test func aSecondSubscriptionIsCancelledAndDescriptionIsCombines() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.receive(on: scheduler).subscribe(subscriber)
        let relay = subscriber.subscription
        #expect(relay.map { String(describing: $0) } == "ReceiveOn")
        #expect(relay.flatMap { ($0 as? any CustomReflectable)?.customMirror.children.count } == 0)
        #expect(
            relay.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
                == "ReceiveOn")
        #expect(callsOnSecondSubscription(relay, Int.self, Never.self) == [.cancel])
    }

    @Test func synchronousSourceOneAtATimeDoesNotGrowTheStack() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        RecursiveCountingPublisher(count: 100_000).receive(on: ImmediateScheduler.shared).subscribe(subscriber)
        #expect(subscriber.values.count == 100_000)
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aValueSentWhileSubscribingArrivesOnceReceiveSubscriptionReturns() {
        // Combine delivers the value from inside `request(_:)` when the scheduler runs actions at once:
        // "subscription", "value 1", "finished", "requested". Ripple's deliveries never nest (see the
        // "Differences from Combine" article).
        var events: [String] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                events.append("subscription")
                subscription.request(.max(1))
                events.append("requested")
            },
            receiveValue: { value in
                events.append("value \(value)")
                return .none
            },
            receiveCompletion: { _ in events.append("finished") }
        )
        Just(1).receive(on: ImmediateScheduler.shared).subscribe(subscriber)
        #expect(events == ["subscription", "requested", "value 1", "finished"])

        // So a subscriber that cancels before `receive(subscription:)` returns receives nothing.
        var cancelledEvents: [String] = []
        let cancelling = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscription.request(.max(1))
                subscription.cancel()
            },
            receiveValue: { value in
                cancelledEvents.append("value \(value)")
                return .none
            },
            receiveCompletion: { _ in cancelledEvents.append("finished") }
        )
        Just(1).receive(on: ImmediateScheduler.shared).subscribe(cancelling)
        #expect(cancelledEvents == [])
    }

    @Test func deliveriesNeverOverlapOnAConcurrentQueue() {
        let queue = DispatchQueue(label: "receive-on-concurrent", attributes: .concurrent)
        let upstream = TestPublisher<Int, Never>()
        let detector = OverlapDetector()
        let done = TimingTestFlag()
        let allValues = TimingTestFlag()
        let received = TimingTestList<Int>()
        let cancellable = upstream.receive(on: queue).sink(
            receiveCompletion: { _ in done.raise() },
            receiveValue: { value in
                detector.enter()
                received.append(value)
                detector.leave()
                if received.count == 2_000 { allValues.raise() }
            }
        )
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for value in 0..<500 { upstream.send(worker * 1_000 + value) }
        }
        // On a concurrent queue a completion scheduled last may still overtake values scheduled before
        // it (as in Combine), so it is sent once every value has arrived.
        #expect(allValues.wait())
        upstream.send(completion: .finished)
        #expect(done.wait())
        #expect(detector.overlaps == 0)
        #expect(received.count == 2_000)
        cancellable.cancel()
    }

    @Test func realTimeDeliveryOnADispatchQueue() {
        let queue = DispatchQueue(label: "receive-on-serial")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let upstream = TestPublisher<Int, Never>()
        let seen = TimingTestList<Int?>()
        let done = TimingTestFlag()
        let cancellable = upstream.receive(on: queue).sink(
            receiveCompletion: { _ in
                seen.append(DispatchQueue.getSpecific(key: key))
                done.raise()
            },
            receiveValue: { _ in seen.append(DispatchQueue.getSpecific(key: key)) }
        )
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(done.wait())
        #expect(seen.all == [42, 42, 42])
        cancellable.cancel()
    }
}
