import Testing

@testable import Ripple

@Suite("MapError")
struct MapErrorTests {
    @Test func convertsTheFailureAndPassesTheRestThrough() {
        let upstream = TransformingNamingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        upstream.mapError { _ in TestError.other }.subscribe(subscriber)
        #expect(upstream.base.send(1) == .max(1))
        upstream.base.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(1), .failure(.other)])
        #expect(upstream.base.calls == [.request(.max(3))])
        #expect(upstream.subscriberNames == ["MapError"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
    }

    @Test func forwardsAFinishAndCancel() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        let mapped = Publishers.MapError(upstream: upstream, transform: { _ in TestError.other })
        #expect(mapped.transform(.oops) == .other)
        mapped.subscribe(subscriber)
        subscriber.cancel()
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .finished])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }
}

@Suite("SetFailureType")
struct SetFailureTypeTests {
    struct EquatablePublisher: Publisher, Equatable {
        typealias Output = Int
        typealias Failure = Never
        let id: Int
        func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .finished)
        }
    }

    @Test func passesEverythingThroughWithANewFailureType() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.setFailureType(to: TestError.self).subscribe(subscriber)
        #expect(upstream.base.send(7) == .max(1))
        upstream.base.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(7), .finished])
        #expect(upstream.base.calls == [.request(.max(1))])
        #expect(upstream.subscriberNames == ["SetFailureType"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func chainingKeepsOneSetFailureTypeAndIsEquatable() {
        let base = EquatablePublisher(id: 1)
        let twice: Publishers.SetFailureType<EquatablePublisher, TestError> =
            base.setFailureType(to: (any Error).self).setFailureType(to: TestError.self)
        #expect(twice.upstream == base)
        #expect(twice == base.setFailureType(to: TestError.self))
        #expect(twice != EquatablePublisher(id: 2).setFailureType(to: TestError.self))
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        twice.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .finished])
    }
}
