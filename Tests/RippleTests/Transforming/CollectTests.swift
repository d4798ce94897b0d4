import Testing

@testable import Ripple

@Suite("Collect, Count")
struct CollectAndCountTests {
    @Test func collectPublishesAllValuesAsOneArray() {
        let run = runReduction([3, 1, 2]) { $0.collect() }
        #expect(run.beforeRequest == [.subscription("Collect")])
        #expect(run.events == [.subscription("Collect"), .value([3, 1, 2]), .finished])
        #expect(run.calls == [.request(.unlimited)])
        #expect(runReduction([]) { $0.collect() }.events == [.subscription("Collect"), .value([]), .finished])
        #expect(
            runReduction([1], then: .failure(.oops)) { $0.collect() }.events
                == [.subscription("Collect"), .failure(.oops)])
    }

    @Test func countPublishesTheNumberOfValues() {
        #expect(runReduction([5, 5, 5]) { $0.count() }.events == [.subscription("Count"), .value(3), .finished])
        #expect(runReduction([]) { $0.count() }.events == [.subscription("Count"), .value(0), .finished])
        #expect(
            runReduction([1], then: .failure(.oops)) { $0.count() }.events
                == [.subscription("Count"), .failure(.oops)])
    }

    @Test func equatable() {
        #expect(TransformingEquatableSource(id: 1).collect() == TransformingEquatableSource(id: 1).collect())
        #expect(TransformingEquatableSource(id: 1).collect() != TransformingEquatableSource(id: 2).collect())
        #expect(TransformingEquatableSource(id: 1).count() == TransformingEquatableSource(id: 1).count())
        #expect(TransformingEquatableSource(id: 1).count() != TransformingEquatableSource(id: 2).count())
    }
}

@Suite("CollectByCount")
struct CollectByCountTests {
    @Test func groupsAndMultipliesDemandByTheCount() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>(initialDemand: .max(2), onValue: { _ in .max(3) })
        defer { subscriber.cancel() }
        let collect = upstream.collect(4)
        #expect(collect.count == 4)
        collect.subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(8))])
        #expect([1, 2, 3].map { upstream.send($0) } == [.none, .none, .none])
        #expect(upstream.send(4) == .max(12))
        #expect([5, 6, 7].map { upstream.send($0) } == [.none, .none, .none])
        #expect(upstream.send(8) == .max(12))
        upstream.send(9)
        upstream.send(10)
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        #expect(
            subscriber.events == [
                .subscription("CollectByCount"), .value([1, 2, 3, 4]), .value([5, 6, 7, 8]),
                .value([9, 10]), .finished,
            ])
        subscriber.request(.max(5))
        #expect(upstream.calls == [.request(.max(8))])
    }

    @Test func downstreamRequestsAreMultiplied() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.collect(3).subscribe(subscriber)
        subscriber.request(.max(2))
        subscriber.request(.unlimited)
        #expect(upstream.calls == [.request(.max(6)), .request(.unlimited)])
    }

    @Test func finishWithAnEmptyBufferSendsNoShortGroup() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        defer { subscriber.cancel() }
        upstream.collect(2).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(upstream.send(3) == .none)
        #expect(subscriber.events == [.subscription("CollectByCount"), .value([1, 2]), .finished])
    }

    @Test func aFailureDiscardsTheBuffer() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        defer { subscriber.cancel() }
        upstream.collect(4).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("CollectByCount"), .failure(.oops)])
    }

    @Test func cancelStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<[Int], TestError>()
        defer { subscriber.cancel() }
        upstream.collect(2).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("CollectByCount")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    /// As Combine's, collect(_:) forgets a cancel before its upstream's subscription (unreachable for a
    /// downstream, which gets the subscription only after the upstream's) and takes the late subscription,
    /// asking nothing until the downstream does.
    @Test func aCancelBeforeTheSubscriptionIsForgottenAsInCombine() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.collect(2).subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        subscriber.request(.max(1))
        #expect(upstream.subscription.calls == [.request(.max(2))])
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CollectByCount"), .value([1]), .finished])
    }

    /// As Combine's, collect(_:) passes on a completion that comes before its upstream's subscription, and
    /// cancels a subscription that comes after it.
    @Test func aCompletionBeforeTheSubscriptionIsPassedOnAsInCombine() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        defer { subscriber.cancel() }
        upstream.collect(2).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.history == [.finished])
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [.cancel])
        #expect(subscriber.history == [.finished])
    }

    @Test func oneAtATime() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.collect(2).subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(2))])
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .max(2))
        #expect(upstream.send(3) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.values == [[1, 2], [3]])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func aCountBelowOneActsAsOne() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.collect(0).subscribe(subscriber)
        upstream.send(1)
        #expect(upstream.calls == [.request(.max(2))])
        #expect(subscriber.values == [[1]])
    }

    @Test func secondSubscriptionReflectionAndEquatable() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<[Int], Never>()
        defer { subscriber.cancel() }
        upstream.collect(3).subscribe(subscriber)
        let second = TransformingRecordingSubscription()
        upstream.subscribers[0].receive(subscription: second)
        #expect(second.calls == [.cancel])
        #expect(upstream.subscriberNames == ["CollectByCount"])
        #expect(
            upstream.subscribers[0].customMirror.children.map { "\($0.label ?? "")" }
                == ["downstream", "upstreamSubscription", "buffer", "count"])
        _ = upstream.subscribers[0].receive(4)
        #expect(upstream.subscribers[0].customMirror.children.dropFirst(2).map { "\($0.value)" } == ["[4]", "3"])
        #expect(
            (subscriber.subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "CollectByCount")
        #expect(TransformingEquatableSource(id: 1).collect(2) == TransformingEquatableSource(id: 1).collect(2))
        #expect(TransformingEquatableSource(id: 1).collect(2) != TransformingEquatableSource(id: 1).collect(3))
    }
}
