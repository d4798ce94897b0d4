import Dispatch
import Testing

@testable import Ripple

@Suite("prefix(while:), tryPrefix(while:)")
struct PrefixWhileTests {
    @Test func republishesWhileThePredicateHoldsThenCancelsAndFinishes() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        publisher.prefix(while: { $0 < 3 }).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("PrefixWhile")])
        #expect(publisher.calls == [.request(.max(2))])
        #expect(publisher.send(1) == .max(1))
        #expect(publisher.send(2) == .max(1))
        #expect(publisher.send(3) == .none)
        #expect(publisher.send(1) == .none)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("PrefixWhile"), .value(1), .value(2), .finished])
        #expect(publisher.calls == [.request(.max(2)), .cancel])
    }

    @Test func upstreamCompletionPassesThroughOnce() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        publisher.prefix(while: { _ in true }).subscribe(subscriber)
        publisher.send(1)
        publisher.send(completion: .failure(.oops))
        publisher.send(completion: .finished)
        publisher.send(2)
        #expect(subscriber.events == [.subscription("PrefixWhile"), .value(1), .failure(.oops)])
        #expect(publisher.calls == [.request(.unlimited)])
    }

    @Test func tryPrefixFailsWithTheThrownErrorAndCancelsUpstream() {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, SequencingTryError>()
        defer { subscriber.cancel() }
        publisher.tryPrefix(while: { value in
            if value == 2 { throw TestError.other }
            return true
        })
        .mapToSequencingTryError()
        .subscribe(subscriber)
        publisher.send(1)
        publisher.send(2)
        publisher.send(3)
        #expect(
            subscriber.events == [
                .subscription("TryPrefixWhile"), .value(1), .failure(SequencingTryError(TestError.other)),
            ])
        #expect(publisher.calls == [.request(.unlimited), .cancel])
    }

    @Test func tryPrefixFinishesWhenThePredicateFailsAndForwardsUpstreamErrors() {
        let finishing = TestPublisher<Int, TestError>()
        let finished = TestSubscriber<Int, SequencingTryError>()
        defer { finished.cancel() }
        finishing.tryPrefix(while: { $0 < 2 }).mapToSequencingTryError().subscribe(finished)
        finishing.send(1)
        finishing.send(2)
        #expect(finished.events == [.subscription("TryPrefixWhile"), .value(1), .finished])

        let failing = TestPublisher<Int, TestError>()
        let failed = TestSubscriber<Int, SequencingTryError>()
        defer { failed.cancel() }
        failing.tryPrefix(while: { _ in true }).mapToSequencingTryError().subscribe(failed)
        failing.send(completion: .failure(.oops))
        #expect(failed.events == [.subscription("TryPrefixWhile"), .failure(SequencingTryError(TestError.oops))])
    }

    @Test func cancelStopsDeliveryAndRejectsASecondSubscription() throws {
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(5))
        defer { subscriber.cancel() }
        let predicateCalls = SequencingCounter()
        publisher.prefix(while: { _ in
            predicateCalls.increment()
            return true
        }).subscribe(subscriber)
        publisher.send(1)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(1))
        publisher.send(2)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("PrefixWhile"), .value(1)])
        #expect(predicateCalls.count == 1)
        #expect(publisher.calls == [.request(.max(5)), .cancel])
    }

    @Test func honoursDemandOneAtATime() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        SequencingSyncPublisher<Int, Never>(Array(0..<10_000)).prefix(while: { $0 < 9_000 }).subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<9_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func descriptions() throws {
        let publisher = TestPublisher<Int, Never>()
        let plain = TestSubscriber<Int, Never>()
        defer { plain.cancel() }
        publisher.prefix(while: { _ in true }).subscribe(plain)
        let subscription = try #require(plain.subscription)
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "PrefixWhile"
        )
        #expect((subscription as? any CustomReflectable)?.customMirror.children.count == 1)
        let prefix = publisher.tryPrefix(while: { _ in true })
        #expect(try prefix.predicate(1))
    }

    @Test func concurrentCancelAndDelivery() {
        for _ in 0..<100 {
            let publisher = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            publisher.prefix(while: { $0 < 1_000 }).subscribe(subscriber)
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
}
