import Testing

@testable import Ripple

@Suite("Map, TryMap, replaceNil")
struct MapTests {
    @Test func mapPassesTheUpstreamSubscriptionThroughAndTransforms() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: .max(2), onValue: { _ in .max(3) })
        defer { subscriber.cancel() }
        upstream.map { "\($0 * 2)" }.subscribe(subscriber)
        // Kept past the failure, so that the request and cancel after it reach the upstream's subscription.
        let kept = subscriber.subscription
        #expect(upstream.calls == [.request(.max(2))])
        #expect(upstream.send(1) == .max(3))
        #expect(upstream.send(2) == .max(3))
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("TestSubscription"), .value("2"), .value("4"), .failure(.oops)])
        subscriber.request(.max(5))
        subscriber.cancel()
        #expect(upstream.calls == [.request(.max(2)), .request(.max(5)), .cancel])
        withExtendedLifetime(kept) {}
    }

    @Test func mapForwardsAFinish() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.map { $0 + 1 }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(2), .finished])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func mapInnerSubscriberIsNamedMap() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        upstream.map { $0 }.subscribe(TestSubscriber<Int, Never>())
        #expect(upstream.subscriberNames == ["Map"])
        let inner = upstream.subscribers[0]
        #expect(inner.customMirror.children.isEmpty)
        #expect(inner.description == "Map")
    }

    @Test func mapOfMapFusesIntoOneMap() {
        let upstream = TestPublisher<Int, Never>()
        let fused: Publishers.Map<TestPublisher<Int, Never>, String> = upstream.map { $0 * 10 }.map { "\($0 + 1)" }
        #expect(fused.upstream === upstream)
        #expect(fused.transform(4) == "41")
        let subscriber = TestSubscriber<String, Never>()
        defer { subscriber.cancel() }
        fused.subscribe(subscriber)
        upstream.send(2)
        #expect(subscriber.values == ["21"])
    }

    @Test func tryMapOfMapFusesIntoOneTryMap() throws {
        let upstream = TestPublisher<Int, Never>()
        let fused: Publishers.TryMap<TestPublisher<Int, Never>, Int> = upstream.map { $0 * 10 }.tryMap { value in
            if value > 50 { throw TestError.oops }
            return value + 1
        }
        #expect(fused.upstream === upstream)
        #expect(try fused.transform(2) == 21)
        #expect(throws: TestError.oops) { try fused.transform(6) }
    }

    @Test func tryMapHasItsOwnSubscriptionAndPassesDemandThrough() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        upstream.tryMap { $0 * 2 }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.calls == [.request(.max(2))])
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(1))
        subscriber.request(.max(4))
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.oops))
        // As in Combine, TryMap checks nothing on the value path: a misbehaving upstream's late value passes
        // (and the ended subscriber, like Combine's Sink, answers it with no demand).
        #expect(upstream.send(3) == .none)
        #expect(subscriber.events == [.subscription("TryMap"), .value(2), .value(4), .finished, .value(6)])
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(upstream.calls == [.request(.max(2)), .request(.max(4))])
    }

    @Test func tryMapThrowCancelsUpstreamThenFails() {
        let upstream = TestPublisher<Int, TestError>()
        var calls = 0
        let subscriber = TestSubscriber<Int, TestError>(onCompletion: { [unowned upstream] _ in
            // The upstream is already cancelled when the failure arrives.
            #expect(upstream.calls == [.request(.unlimited), .cancel])
        })
        defer { subscriber.cancel() }
        upstream.tryMap { value -> Int in
            calls += 1
            if value == 3 { throw TestError.oops }
            return value
        }.mapError(transformingTestError).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.send(3) == .none)
        #expect(subscriber.events == [.subscription("TryMap"), .value(1), .value(2), .failure(.oops)])
        #expect(subscriber.orderViolations == 0)
        // A misbehaving upstream that goes on: as in Combine, values still pass and each throw fails again,
        // while its completion is dropped.
        #expect(upstream.send(4) == .none)
        upstream.send(completion: .finished)
        #expect(upstream.send(3) == .none)
        #expect(
            subscriber.events == [
                .subscription("TryMap"), .value(1), .value(2), .failure(.oops), .value(4), .failure(.oops),
            ])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        #expect(calls == 5)
    }

    @Test func tryMapForwardsUpstreamFailureAsAnyError() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.tryMap { $0 }.mapError(transformingTestError).subscribe(subscriber)
        upstream.send(completion: .failure(.other))
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TryMap"), .failure(.other)])
    }

    @Test func tryMapCancelStopsRequestsAndCompletion() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.tryMap { $0 }.mapError(transformingTestError).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        subscriber.cancel()
        // An upstream that ignores the cancel: its value passes (Combine checks nothing on TryMap's value
        // path), its completion does not.
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("TryMap"), .value(1), .value(2)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func tryMapRejectsASecondSubscriptionAndDescribesItself() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.tryMap { $0 }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.subscriberNames == ["TryMap"])
        let second = TransformingRecordingSubscription()
        upstream.subscribers[0].receive(subscription: second)
        #expect(second.calls == [.cancel])
        #expect(upstream.base.calls == [])
        let inner = upstream.subscribers[0]
        #expect(inner.customMirror.children.count == 0)
        #expect(
            (subscriber.subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "TryMap")
    }

    @Test func tryMapFusions() throws {
        let upstream = TestPublisher<Int, Never>()
        let tryMapped = upstream.tryMap { value -> Int in
            if value < 0 { throw TestError.oops }
            return value * 2
        }
        let mapped: Publishers.TryMap<TestPublisher<Int, Never>, String> = tryMapped.map { "\($0)" }
        let tried: Publishers.TryMap<TestPublisher<Int, Never>, Int> = tryMapped.tryMap { value in
            if value > 10 { throw TestError.other }
            return value + 1
        }
        #expect(try mapped.transform(3) == "6")
        #expect(throws: TestError.oops) { try mapped.transform(-1) }
        #expect(try tried.transform(2) == 5)
        #expect(throws: TestError.other) { try tried.transform(6) }
        #expect(throws: TestError.oops) { try tried.transform(-1) }
        #expect(mapped.upstream === upstream && tried.upstream === upstream)
    }

    @Test func tryMapWithOneAtATimeDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.tryMap { $0 + 100 }.mapError(transformingTestError).subscribe(subscriber)
        for value in 0..<5 { #expect(upstream.send(value) == .max(1)) }
        #expect(subscriber.values == [100, 101, 102, 103, 104])
        #expect(subscriber.demandViolations == 0)
        #expect(upstream.calls == [.request(.max(1))])
    }

    @Test func replaceNilIsAMap() {
        let upstream = TransformingNamingPublisher<Int?, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        let replaced: Publishers.Map<TransformingNamingPublisher<Int?, Never>, Int> = upstream.replaceNil(with: 0)
        replaced.subscribe(subscriber)
        upstream.base.send(5)
        upstream.base.send(nil)
        upstream.base.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TestSubscription"), .value(5), .value(0), .finished])
        #expect(upstream.subscriberNames == ["Map"])
    }
}
