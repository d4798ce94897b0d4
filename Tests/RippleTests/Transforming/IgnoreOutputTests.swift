import Testing

@testable import Ripple

@Suite("IgnoreOutput")
struct IgnoreOutputTests {
    @Test func handsTheSubscriptionDownThenRequestsUnlimited() {
        let upstream = TransformingNamingPublisher<Int, TestError>()
        defer { upstream.detachSubscribers() }  // the probe below keeps the upstream
        var callsWhenSubscribed: [TestPublisher<Int, TestError>.Call]?
        let subscriber = TestSubscriber<Never, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        let probe = AnySubscriber<Never, TestError>(
            receiveSubscription: { subscription in
                callsWhenSubscribed = upstream.base.calls
                subscriber.receive(subscription: subscription)
            },
            receiveCompletion: { subscriber.receive(completion: $0) }
        )
        upstream.ignoreOutput().subscribe(probe)
        #expect(callsWhenSubscribed == [])
        #expect(upstream.base.calls == [.request(.unlimited)])
        #expect(upstream.base.send(1) == .none)
        #expect(upstream.base.send(2) == .none)
        upstream.base.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("TestSubscription"), .failure(.oops)])
        #expect(upstream.subscriberNames == ["IgnoreOutput"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
    }

    @Test func forwardsAFinishAndCancel() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Never, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.ignoreOutput().subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .finished])
        #expect(upstream.calls == [.request(.max(1)), .request(.unlimited), .cancel])
    }

    @Test func equatable() {
        struct Source: Publisher, Equatable {
            typealias Output = Int
            typealias Failure = Never
            let id: Int
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
        }
        #expect(Source(id: 1).ignoreOutput() == Source(id: 1).ignoreOutput())
        #expect(Source(id: 1).ignoreOutput() != Source(id: 2).ignoreOutput())
    }
}
