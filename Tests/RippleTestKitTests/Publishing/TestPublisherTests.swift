import RippleTestKit
import Testing

/// The hand-driven publisher: what it records of the demand and cancel it receives, and what it sends.
@Suite struct TestPublisherTests {
    @Test func recordsTheDemandAndCancelOfAnOperatorDownstream() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        upstream.filter { $0.isMultiple(of: 2) }.subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(2))])
        upstream.send(1)  // filtered out: filter asks for one more in its place
        upstream.send(2)
        subscriber.cancel()
        #expect(upstream.calls == [.request(.max(2)), .cancel])
        #expect(upstream.requested == .max(2))
        #expect(upstream.isCancelled)
        #expect(subscriber.values == [2])
    }

    @Test func sendsToEverySubscriberWhetherDemandedOrNot() {
        let upstream = TestPublisher<String, Never>()
        let first = TestSubscriber<String, Never>(initialDemand: nil)
        let second = TestSubscriber<String, Never>()
        upstream.subscribe(first)
        upstream.subscribe(second)
        #expect(upstream.subscriptions == 2)
        upstream.send("a")
        upstream.send(completion: .finished)
        #expect(first.events == [.subscription("TestSubscription"), .value("a"), .finished])
        #expect(first.demandViolations == 1)
        #expect(second.events == first.events)
    }

    @Test func detachingLetsGoOfEverySubscriber() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.handleEvents().subscribe(subscriber)
        weak let released = subscriber.subscription.map { $0 as AnyObject }
        upstream.send(1)
        subscriber.cancel()
        #expect(released != nil, "the operator is kept by the publisher after the cancel")
        upstream.detachSubscribers()
        #expect(released == nil)
        upstream.send(2)
        #expect(subscriber.values == [1])
        #expect(upstream.subscriptions == 1, "counts attachments, not the subscribers kept")
    }

    @Test func onRequestSeesEachDemandAfterItIsRecorded() {
        let demands = PassthroughSubject<Subscribers.Demand, Never>()
        let seen = TestSubscriber<Subscribers.Demand, Never>()
        defer { seen.cancel() }
        demands.subscribe(seen)
        let upstream = TestPublisher<Int, Never>(onRequest: { demands.send($0) })
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { subscriber.cancel() }
        upstream.subscribe(subscriber)
        subscriber.request(.max(2))
        #expect(seen.values == [.max(3), .max(2)])
        #expect(upstream.calls == [.request(.max(3)), .request(.max(2))])
    }
}
