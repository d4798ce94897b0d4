import Dispatch
import Testing

@testable import Ripple

@Suite("Share")
struct ShareTests {
    @Test func sharesOneUpstreamSubscription() {
        let upstream = TestPublisher<Int, TestError>()
        let shared = upstream.share()
        #expect(upstream.subscriptions == 0)
        let first = TestSubscriber<Int, TestError>(initialDemand: .max(42), onValue: { .max($0) })
        defer { first.cancel() }
        shared.subscribe(first)
        #expect(upstream.calls == [.request(.unlimited)])
        let second = TestSubscriber<Int, TestError>()
        defer { second.cancel() }
        shared.subscribe(second)
        #expect(upstream.subscriptions == 1)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.oops))
        #expect(upstream.calls == [.request(.unlimited)])
        #expect(first.events == [.subscription("Multicast"), .value(1), .value(2), .failure(.oops)])
        #expect(second.events == first.events)
    }

    @Test func lateSubscriberMissesEarlierValuesAndLatestGetsOnlyTheCompletion() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share()
        let early = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { early.cancel() }
        shared.subscribe(early)
        for value in 1...4 { upstream.send(value) }
        let late = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { late.cancel() }
        shared.subscribe(late)
        for value in 5...7 { upstream.send(value) }
        upstream.send(completion: .finished)
        let latest = TestSubscriber<Int, Never>()
        defer { latest.cancel() }
        shared.subscribe(latest)
        #expect(early.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .finished])
        #expect(late.events == [.subscription("Multicast"), .value(5), .value(6), .finished])
        #expect(latest.events == [.subscription("Multicast"), .finished])
        #expect(upstream.calls == [.request(.unlimited)])
        #expect(upstream.subscriptions == 1)
    }

    @Test func lastCancelDisconnectsAndNextSubscriberResubscribes() {
        let upstream = TestPublisher<Int, Never>()
        let shared = upstream.share()
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        shared.subscribe(first)
        shared.subscribe(second)
        upstream.send(1)
        first.cancel()
        #expect(upstream.calls == [.request(.unlimited)])
        upstream.send(2)
        second.cancel()
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(3)
        let third = TestSubscriber<Int, Never>()
        defer { third.cancel() }
        shared.subscribe(third)
        #expect(upstream.subscriptions == 2)
        #expect(upstream.calls == [.request(.unlimited), .cancel, .request(.unlimited)])
        upstream.send(4)
        #expect(first.values == [1])
        #expect(second.values == [1, 2])
        #expect(third.events == [.subscription("Multicast"), .value(4)])
        third.cancel()
    }

    @Test func synchronousUpstreamIsExhaustedByTheFirstSubscriber() {
        // share() connects when the first subscriber attaches: a synchronous upstream emits everything
        // to it before the second subscriber arrives, which then only sees the completion.
        let upstream = MulticastingSyncPublisher([1, 2, 3])
        let shared = upstream.share()
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        shared.subscribe(first)
        shared.subscribe(second)
        #expect(first.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .finished])
        #expect(second.events == [.subscription("Multicast"), .finished])
        #expect(upstream.subscriptions == 1)
    }

    @Test func behavesExactlyAsMulticastPlusAutoconnect() {
        func script<P: Publisher>(_ make: (TestPublisher<Int, Never>) -> P) -> (
            [[Event<Int, Never>]], [TestPublisher<Int, Never>.Call]
        )
        where P.Output == Int, P.Failure == Never {
            let upstream = TestPublisher<Int, Never>()
            let shared = make(upstream)
            let a = TestSubscriber<Int, Never>(initialDemand: .max(2))
            let b = TestSubscriber<Int, Never>.oneAtATime()
            shared.subscribe(a)
            upstream.send(1)
            shared.subscribe(b)
            upstream.send(2)
            upstream.send(3)
            a.cancel()
            b.cancel()
            upstream.send(4)
            let c = TestSubscriber<Int, Never>()
            shared.subscribe(c)
            upstream.send(5)
            upstream.send(completion: .finished)
            let d = TestSubscriber<Int, Never>()
            shared.subscribe(d)
            return ([a.events, b.events, c.events, d.events], upstream.calls)
        }
        let viaShare = script { $0.share() }
        let viaSubject = script { $0.multicast(subject: PassthroughSubject()).autoconnect() }
        let viaFactory = script { $0.multicast { PassthroughSubject() }.autoconnect() }
        #expect(viaShare.0 == viaSubject.0)
        #expect(viaShare.1 == viaSubject.1)
        #expect(viaShare.0 == viaFactory.0)
        #expect(viaShare.1 == viaFactory.1)
        #expect(viaShare.0[0] == [.subscription("Multicast"), .value(1), .value(2)])
        #expect(viaShare.0[1] == [.subscription("Multicast"), .value(2), .value(3)])
        #expect(viaShare.0[2] == [.subscription("Multicast"), .value(5), .finished])
        #expect(viaShare.0[3] == [.subscription("Multicast"), .finished])
        #expect(viaShare.1 == [.request(.unlimited), .cancel, .request(.unlimited)])
    }

    @Test func multicastWithConnectLetsEverySubscriberAttachFirst() {
        let upstream = MulticastingSyncPublisher([1, 2, 3])
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, Never>())
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        multicast.subscribe(first)
        multicast.subscribe(second)
        let connection = multicast.connect()
        #expect(first.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .finished])
        #expect(second.events == first.events)
        // A subscriber attaching after the connection misses everything but the completion.
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        multicast.subscribe(late)
        #expect(late.events == [.subscription("Multicast"), .finished])
        connection.cancel()
    }

    @Test func equatableByIdentity() {
        let upstream = TestPublisher<Int, Never>()
        let first = upstream.share()
        let second = upstream.share()
        #expect(first == first)
        #expect(first != second)
        #expect(first.upstream === upstream)
    }

    @Test func concurrentSubscribersSendsAndCancels() {
        let upstream = PassthroughSubject<Int, Never>()
        nonisolated(unsafe) let shared = upstream.share()
        let stable = TestSubscriber<Int, Never>()
        defer { stable.cancel() }
        shared.subscribe(stable)
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread {
                if thread < 2 {
                    upstream.send(thread * perThread + index)
                } else {
                    let subscriber = TestSubscriber<Int, Never>.oneAtATime()
                    shared.subscribe(subscriber)
                    subscriber.cancel()
                    #expect(subscriber.demandViolations == 0)
                    #expect(multicastingEachSenderInOrder(subscriber.values, stride: perThread))
                }
            }
        }
        upstream.send(completion: .finished)
        #expect(stable.values.count == 2 * perThread)
        #expect(multicastingEachSenderInOrder(stable.values, stride: perThread))
        #expect(stable.completion == .finished)
    }
}
