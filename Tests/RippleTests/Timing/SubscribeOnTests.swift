import Dispatch
import Testing

@testable import Ripple

@Suite("subscribe(on:)")
struct SubscribeOnTests {
    @Test func subscribesRequestsAndCancelsOnTheScheduler() {
        let scheduler = VirtualTimeScheduler()
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.subscribe(on: scheduler).subscribe(subscriber)
        #expect(upstream.subscriptions == 0)
        #expect(subscriber.events.isEmpty)
        scheduler.advance(by: .seconds(1))
        #expect(upstream.subscriptions == 1)
        #expect(subscriber.events == [.subscription("SubscribeOn")])
        #expect(upstream.calls == [.request(.max(1))], "the first request ran on the scheduler while it advanced")

        upstream.send(1)
        #expect(subscriber.events == [.subscription("SubscribeOn"), .value(1)], "values pass through at once")
        subscriber.request(.max(2))
        #expect(upstream.calls == [.request(.max(1))])
        scheduler.advance(by: .zero)
        #expect(upstream.calls == [.request(.max(1)), .request(.max(2))])
        subscriber.request(.max(3))
        subscriber.cancel()
        subscriber.cancel()
        scheduler.advance(by: .zero)
        #expect(
            upstream.calls == [.request(.max(1)), .request(.max(2)), .request(.max(3)), .cancel],
            "as in Combine, a request made before the cancel reaches the upstream before it")
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("SubscribeOn"), .value(1)])
    }

    /// On ``ImmediateScheduler``, an upstream that requests again from inside `request` makes Combine trap
    /// inside its own lock; Ripple passes each request on after the one in progress, in order.
    @Test func aRequestFromInsideTheUpstreamsRequestFollowsItOnImmediateScheduler() {
        final class Holder: @unchecked Sendable {
            var subscriber: TestSubscriber<Int, Never>?
            var remaining = 3
        }
        let holder = Holder()
        let upstream = TestPublisher<Int, Never>(onRequest: { _ in
            guard holder.remaining > 0 else { return }
            holder.remaining -= 1
            holder.subscriber?.request(.max(2))
        })
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        holder.subscriber = subscriber
        upstream.subscribe(on: ImmediateScheduler.shared).subscribe(subscriber)
        subscriber.request(.max(1))
        #expect(upstream.calls == [.request(.max(1)), .request(.max(2)), .request(.max(2)), .request(.max(2))])
        #expect(holder.remaining == 0)
    }

    @Test func passesOptionsAndValuesDemand() {
        let scheduler = LoggingScheduler()
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1), onValue: { _ in .max(5) })
        defer { subscriber.cancel() }
        upstream.subscribe(on: scheduler, options: 1).subscribe(subscriber)
        scheduler.advance(by: .zero)
        #expect(upstream.send(1) == .max(5), "the subscriber's returned demand goes back directly")
        let subscription = subscriber.subscription
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .finished)
        subscription?.cancel()
        scheduler.advance(by: .zero)
        #expect(scheduler.log == ["now opt 1", "now opt 1"])
        #expect(subscriber.events == [.subscription("SubscribeOn"), .value(1), .failure(.oops)])
        #expect(upstream.calls == [.request(.max(1))])
        #expect(callsOnSecondSubscription(subscription, Int.self, TestError.self) == [.cancel])
    }

    @Test func upstreamCallsAreSerialisedOnAConcurrentQueue() {
        let queue = DispatchQueue(label: "subscribe-on-concurrent", attributes: .concurrent)
        let detector = OverlapDetector()
        let requested = TimingTestFlag()
        let upstream = TestPublisher<Int, Never>(onRequest: { _ in
            detector.enter()
            detector.leave()
            if detector.calls == 401 { requested.raise() }
        })
        let subscribed = TimingTestFlag()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        let probe = AnySubscriber<Int, Never>(
            receiveSubscription: { subscription in
                subscriber.receive(subscription: subscription)
                subscribed.raise()
            },
            receiveValue: subscriber.receive(_:),
            receiveCompletion: subscriber.receive(completion:)
        )
        upstream.subscribe(on: queue).subscribe(probe)
        #expect(subscribed.wait())
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<100 { subscriber.request(.max(1)) }
        }
        #expect(requested.wait())
        #expect(detector.overlaps == 0)
        #expect(upstream.requested == .max(401))
    }

    @Test func realTimeSubscriptionHappensOnTheQueue() {
        let queue = DispatchQueue(label: "subscribe-on")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let seen = TimingTestList<Int?>()
        let requested = TimingTestFlag()
        let upstream = TestPublisher<Int, Never>(onRequest: { _ in
            seen.append(DispatchQueue.getSpecific(key: key))
            requested.raise()
        })
        let cancellable = upstream.subscribe(on: queue).sink { _ in }
        #expect(requested.wait())
        #expect(seen.all == [7])
        #expect(upstream.subscriptions == 1)
        cancellable.cancel()
    }
}
