import Testing

@testable import Ripple

@Suite("ReplaceError")
struct ReplaceErrorTests {
    @Test func replacesAFailureWithTheValueAndFinishes() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        upstream.replaceError(with: 42).subscribe(subscriber)
        #expect(upstream.send(41) == .max(1))
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .finished)
        #expect(upstream.send(43) == .none)
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(41), .value(42), .finished])
        #expect(upstream.calls == [.request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func waitsForDemandBeforeSendingTheReplacement() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.replaceError(with: 42).subscribe(subscriber)
        #expect(upstream.send(9) == .none)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(9)])
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(9), .value(42), .finished])
        #expect(upstream.calls == [.request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func failureBeforeAnyRequest() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceError(with: 7).subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceError")])
        subscriber.request(.unlimited)
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(7), .finished])
        #expect(upstream.calls == [])
    }

    @Test func aFinishPassesThroughOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.replaceError(with: 1).subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("ReplaceError"), .finished])
    }

    @Test func cancelStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.replaceError(with: 1).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(upstream.send(5) == .none)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("ReplaceError")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancelAfterAFailureWithoutDemandDropsTheReplacement() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceError(with: 1).subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceError")])
        #expect(upstream.calls == [])
    }

    @Test func secondSubscriptionIsCancelledAndReflection() {
        let upstream = TransformingNamingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.replaceError(with: 0).subscribe(subscriber)
        let second = TransformingRecordingSubscription()
        upstream.subscribers[0].receive(subscription: second)
        #expect(second.calls == [.cancel])
        #expect(upstream.subscriberNames == ["ReplaceError"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
        #expect(
            (subscriber.subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "ReplaceError")
    }

    /// As Combine's, replaceError forgets a cancel before its upstream's subscription (unreachable for a
    /// downstream, which gets the subscription only after the upstream's) and takes the late subscription,
    /// passing the downstream's requests on.
    @Test func aCancelBeforeTheSubscriptionIsForgottenAsInCombine() {
        let upstream = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceError(with: 0).subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        subscriber.request(.max(1))
        #expect(upstream.subscription.calls == [.request(.max(1))])
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("ReplaceError"), .value(0), .finished])
    }

    @Test func equatable() {
        struct Source: Publisher, Equatable {
            typealias Output = Int
            typealias Failure = TestError
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {}
        }
        #expect(Source().replaceError(with: 1) == Source().replaceError(with: 1))
        #expect(Source().replaceError(with: 1) != Source().replaceError(with: 2))
        #expect(Source().replaceError(with: 3).output == 3)
    }
}

@Suite("ReplaceEmpty")
struct ReplaceEmptyTests {
    @Test func replacesAnEmptyStream() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 42).subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(42), .finished])
        #expect(upstream.calls == [.request(.max(1))])
    }

    @Test func valuesPassThroughWithTheDownstreamsDemandOnly() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(42), onValue: { _ in .max(4) })
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 832).subscribe(subscriber)
        #expect(upstream.send(0) == .max(4))
        subscriber.request(.max(95))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(0), .finished])
        #expect(upstream.calls == [.request(.max(42)), .request(.max(95))])
    }

    /// As Combine's, replaceEmpty forgets a cancel before its upstream's subscription and takes the late
    /// subscription (it then passes on only the downstream's demand: see "Demand is never exceeded").
    @Test func aCancelBeforeTheSubscriptionIsForgottenAsInCombine() {
        let upstream = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 7).subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        subscriber.request(.max(1))
        #expect(upstream.subscription.calls == [.request(.max(1))])
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(7), .finished])
    }

    @Test func emptyFinishWaitsForTheFirstRequest() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 22).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("ReplaceEmpty")])
        subscriber.request(.max(1))
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .value(22), .finished])
        #expect(upstream.calls == [])
    }

    @Test func aFailurePassesThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 42).subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        subscriber.request(.unlimited)
        #expect(upstream.send(-1) == .none)
        #expect(subscriber.events == [.subscription("ReplaceEmpty"), .failure(.oops)])
    }

    @Test func cancelStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 42).subscribe(subscriber)
        upstream.send(completion: .finished)
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("ReplaceEmpty")])

        let live = TestPublisher<Int, TestError>()
        let other = TestSubscriber<Int, TestError>()
        defer { other.cancel() }
        live.replaceEmpty(with: 1).subscribe(other)
        other.cancel()
        other.cancel()
        #expect(live.send(3) == .none)
        live.send(completion: .finished)
        #expect(other.events == [.subscription("ReplaceEmpty")])
        #expect(live.calls == [.request(.unlimited), .cancel])
    }

    @Test func secondSubscriptionIsCancelledReflectionAndEquatable() {
        struct Source: Publisher, Equatable {
            typealias Output = Int
            typealias Failure = Never
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
        }
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.replaceEmpty(with: 0).subscribe(subscriber)
        let second = TransformingRecordingSubscription()
        upstream.subscribers[0].receive(subscription: second)
        #expect(second.calls == [.cancel])
        #expect(upstream.subscriberNames == ["ReplaceEmpty"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
        #expect(
            (subscriber.subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "ReplaceEmpty")
        #expect(Source().replaceEmpty(with: 1) == Source().replaceEmpty(with: 1))
        #expect(Source().replaceEmpty(with: 1) != Source().replaceEmpty(with: 2))
    }
}
