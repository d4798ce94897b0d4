import Dispatch
import Testing

@testable import Ripple

@Suite("drop(while:), tryDrop(while:)")
struct DropWhileTests {
    @Test func dropsWhileThePredicateHoldsAndAsksForReplacements() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(5) })
        defer { subscriber.cancel() }
        let calls = SequencingCounter()
        publisher.drop(while: {
            calls.increment()
            return $0 < 3
        }).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("DropWhile")])
        #expect(publisher.calls == [.request(.max(2))])
        #expect(publisher.send(1) == .max(1))
        #expect(publisher.send(2) == .max(1))
        #expect(publisher.send(3) == .max(5))
        #expect(publisher.send(1) == .max(5))
        #expect(calls.count == 3, "the predicate is not called once it returned false")
        publisher.send(completion: .finished)
        publisher.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("DropWhile"), .value(3), .value(1), .finished])
        #expect(publisher.calls == [.request(.max(2))])
    }

    @Test func tryDropFailsWithTheThrownErrorAndCancelsUpstream() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, SequencingTryError>()
        defer { subscriber.cancel() }
        publisher.tryDrop(while: { value in
            if value == 2 { throw TestError.other }
            return true
        })
        .mapToSequencingTryError()
        .subscribe(subscriber)
        #expect(publisher.send(1) == .max(1))
        #expect(publisher.send(2) == .none)
        #expect(publisher.send(3) == .none)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TryDropWhile"), .failure(SequencingTryError(TestError.other))])
        #expect(publisher.calls == [.request(.unlimited), .cancel])
    }

    @Test func tryDropRepublishesAndForwardsUpstreamFailure() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, SequencingTryError>()
        defer { subscriber.cancel() }
        publisher.tryDrop(while: { $0 < 2 }).mapToSequencingTryError().subscribe(subscriber)
        publisher.send(1)
        publisher.send(2)
        publisher.send(0)
        publisher.send(completion: .failure(.oops))
        #expect(
            subscriber.events == [
                .subscription("TryDropWhile"), .value(2), .value(0), .failure(SequencingTryError(TestError.oops)),
            ])
    }

    @Test func cancelStopsDelivery() throws {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        publisher.drop(while: { $0 == 0 }).subscribe(subscriber)
        publisher.send(1)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(1))
        #expect(publisher.send(2) == .none)
        #expect(publisher.send(0) == .none)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("DropWhile"), .value(1)])
        #expect(publisher.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancelDuringTheFirstPassingValue() {
        let publisher = TestPublisher<Int, Never>()
        var subscriber: TestSubscriber<Int, Never>?
        subscriber = TestSubscriber<Int, Never>(onValue: { _ in
            subscriber?.cancel()
            return .none
        })
        publisher.drop(while: { $0 == 0 }).subscribe(subscriber.unsafelyUnwrapped)
        publisher.send(0)
        publisher.send(1)
        publisher.send(2)
        #expect(subscriber?.events == [.subscription("DropWhile"), .value(1)])
        subscriber = nil
    }

    @Test func secondSubscriptionIsCancelled() {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        // A relay that keeps its subscriber, to hand it a second subscription.
        final class Relay: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AnySubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = AnySubscriber(subscriber)
            }
        }
        let relay = Relay()
        relay.drop(while: { _ in false }).subscribe(subscriber)
        relay.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: publisher))
        let other = TestPublisher<Int, Never>()
        relay.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: other))
        #expect(other.calls == [.cancel])
        #expect(publisher.calls == [.request(.unlimited)])
    }

    @Test func aCompletionBeforeTheSubscriptionIsIgnoredAsInCombine() {
        for tryForm in [false, true] {
            let upstream = LatePublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>()
            if tryForm {
                upstream.tryDrop(while: { $0 < 0 }).mapError { $0 as? TestError ?? .other }.subscribe(subscriber)
            } else {
                upstream.drop(while: { $0 < 0 }).subscribe(subscriber)
            }
            upstream.send(completion: .finished)
            #expect(subscriber.events == [])
            upstream.sendSubscription()
            upstream.send(completion: .failure(.oops))
            #expect(subscriber.events.count == 2 && subscriber.events.last == .failure(.oops))
        }
    }

    @Test func honoursDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        SequencingSyncPublisher<Int, Never>(Array(0..<10_000)).drop(while: { $0 < 5_000 }).subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(5_000..<10_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func descriptions() throws {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        publisher.drop(while: { _ in true }).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "DropWhile")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(publisher.drop(while: { $0 > 0 }).predicate(1))
        #expect(try publisher.tryDrop(while: { $0 > 0 }).predicate(1))
    }

    @Test func concurrentCancelAndDelivery() {
        for _ in 0..<100 {
            let publisher = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            publisher.drop(while: { $0 < 10 }).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<200 { publisher.send(value) }
                } else {
                    subscriber.cancel()
                }
            }
            #expect(subscriber.orderViolations == 0)
            #expect(publisher.calls.filter { $0 == .cancel }.count == 1)
        }
    }

    /// As in Combine, a cancel that comes before the upstream's subscription is forgotten (a downstream that
    /// follows the contract cannot send it: it gets its subscription only after the upstream's). The late
    /// subscription is then taken as usual: passed downstream, asked for what the downstream requests.
    @Test func aCancelBeforeTheSubscriptionIsForgottenAsInCombine() throws {
        func check<P: Publisher>(_ name: String, _ make: (LatePublisher<Int, TestError>) -> P) throws
        where P.Output == Int, P.Failure: Equatable {
            let upstream = LatePublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, P.Failure>(initialDemand: nil)
            defer { subscriber.cancel() }
            make(upstream).subscribe(subscriber)
            try #require(upstream.subscriberAsSubscription).cancel()
            #expect(subscriber.events == [], "\(name)")
            upstream.sendSubscription()
            #expect(upstream.subscription.calls == [], "\(name)")
            #expect(subscriber.events == [.subscription(name)], "\(name)")
            subscriber.request(.max(1))
            #expect(upstream.send(1) == .max(1), "\(name)")
            #expect(upstream.send(2) == .none, "\(name)")
            #expect(subscriber.events == [.subscription(name), .value(2)], "\(name)")
            subscriber.cancel()
            #expect(upstream.subscription.calls == [.request(.max(1)), .cancel], "\(name)")
        }
        try check("DropWhile") { $0.drop(while: { $0 < 2 }) }
        try check("TryDropWhile") { $0.tryDrop(while: { $0 < 2 }).mapToSequencingTryError() }
    }
}
