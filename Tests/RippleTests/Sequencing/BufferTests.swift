import Dispatch
import RippleTestSupport
import Testing

@testable import Ripple

@Suite("buffer (Publishers.Buffer)")
struct BufferTests {
    @Test(arguments: [Publishers.PrefetchStrategy.keepFull, .byRequest])
    func asksTheUpstreamBeforeHandingOutTheSubscription(prefetch: Publishers.PrefetchStrategy) {
        final class Holder: @unchecked Sendable { var subscriber: TestSubscriber<Int, TestError>? }
        let holder = Holder()
        let eventsAtRequest = LockedBox<[Int]>([])
        let publisher = TestPublisher<Int, TestError>(onRequest: { _ in
            let count = holder.subscriber?.events.count ?? -1
            eventsAtRequest.withLock { $0.append(count) }
        })
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        holder.subscriber = subscriber
        let buffer = publisher.buffer(size: 42, prefetch: prefetch, whenFull: .dropOldest)
        #expect(buffer.size == 42 && buffer.prefetch == prefetch)
        buffer.subscribe(subscriber)
        #expect(publisher.calls == [.request(prefetch == .keepFull ? .max(42) : .unlimited)])
        #expect(eventsAtRequest.withLock { $0 } == [0])
        #expect(subscriber.events == [.subscription("Buffer")])
    }

    @Test(arguments: ["dropNewest", "dropOldest", "customError"])
    func whatHappensWhenFull(strategy: String) throws {
        let whenFull: Publishers.BufferingStrategy<TestError> =
            switch strategy {
            case "dropNewest": .dropNewest
            case "dropOldest": .dropOldest
            default: .customError { .other }
            }
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        publisher.buffer(size: 3, prefetch: .byRequest, whenFull: whenFull).subscribe(subscriber)
        for value in 1...5 {
            #expect(publisher.send(value) == .none)
        }
        #expect(subscriber.events == [.subscription("Buffer")])
        #expect(
            publisher.calls == (strategy == "customError" ? [.request(.unlimited), .cancel] : [.request(.unlimited)]))
        try #require(subscriber.subscription).request(.max(3))
        try #require(subscriber.subscription).request(.max(1))
        switch strategy {
        case "dropNewest":
            #expect(subscriber.events == [.subscription("Buffer"), .value(1), .value(2), .value(3)])
        case "dropOldest":
            #expect(subscriber.events == [.subscription("Buffer"), .value(3), .value(4), .value(5)])
        default:
            #expect(subscriber.events == [.subscription("Buffer"), .value(1), .value(2), .value(3), .failure(.other)])
        }
    }

    @Test(arguments: ["dropNewest", "dropOldest", "customError"])
    func keepFullRefillsWhatWasPassedOn(strategy: String) {
        let whenFull: Publishers.BufferingStrategy<TestError> =
            switch strategy {
            case "dropNewest": .dropNewest
            case "dropOldest": .dropOldest
            default: .customError { .oops }
            }
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        publisher.buffer(size: 5, prefetch: .keepFull, whenFull: whenFull).subscribe(subscriber)
        for value in 0..<10 {
            #expect(publisher.send(value) == .none)
        }
        subscriber.request(.max(3))
        subscriber.request(.max(1))
        switch strategy {
        case "dropNewest":
            #expect(subscriber.values == [0, 1, 2, 3])
            #expect(publisher.calls == [.request(.max(5)), .request(.max(3)), .request(.max(1))])
        case "dropOldest":
            #expect(subscriber.values == [5, 6, 7, 8])
            #expect(publisher.calls == [.request(.max(5)), .request(.max(3)), .request(.max(1))])
        default:
            // As in Combine, the upstream cancelled on overflow is still asked for the 3 values passed on.
            #expect(subscriber.events == [.subscription("Buffer"), .value(0), .value(1), .value(2), .failure(.oops)])
            #expect(publisher.calls == [.request(.max(5)), .cancel, .request(.max(3))])
        }
    }

    @Test(arguments: [Publishers.PrefetchStrategy.keepFull, .byRequest])
    func withUnlimitedDemandValuesPassStraightThrough(prefetch: Publishers.PrefetchStrategy) {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        publisher.buffer(size: 5, prefetch: prefetch, whenFull: .customError { .oops }).subscribe(subscriber)
        for value in 0..<10 {
            #expect(publisher.send(value) == (prefetch == .keepFull ? .max(1) : .none))
        }
        #expect(subscriber.values.elementsEqual(0..<10))
        #expect(publisher.calls == [.request(prefetch == .keepFull ? .max(5) : .unlimited)])
    }

    @Test(arguments: [Publishers.PrefetchStrategy.keepFull, .byRequest])
    func reEntrantRequestsOnlyAddDemand(prefetch: Publishers.PrefetchStrategy) {
        let publisher = TestPublisher<Int, TestError>()
        var subscriber: TestSubscriber<Int, TestError>?
        subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(3),
            onValue: { _ in
                subscriber?.request(.max(1))
                return .none
            })
        publisher.buffer(size: 5, prefetch: prefetch, whenFull: .dropNewest).subscribe(subscriber.unsafelyUnwrapped)
        for value in 0..<10 {
            #expect(publisher.send(value) == (prefetch == .keepFull ? .max(1) : .none))
        }
        #expect(subscriber?.values.elementsEqual(0..<10) == true)
        #expect(publisher.calls == [.request(prefetch == .keepFull ? .max(5) : .unlimited)])
        subscriber?.cancel()
    }

    @Test func finishingWaitsForDemandAndAnEmptyBuffer() throws {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        publisher.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
        publisher.send(1)
        publisher.send(completion: .finished)
        publisher.send(completion: .failure(.oops))
        #expect(publisher.send(2) == .none)
        #expect(subscriber.events == [.subscription("Buffer")])
        try #require(subscriber.subscription).request(.max(1))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1)])
        try #require(subscriber.subscription).request(.max(1))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1), .finished])
        try #require(subscriber.subscription).request(.max(1))
        #expect(publisher.calls == [.request(.unlimited)])
    }

    @Test func aFailureIsPassedOnOnceTheDemandedValuesAreOut() throws {
        let empty = TestPublisher<Int, TestError>()
        let emptySubscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { emptySubscriber.cancel() }
        empty.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(emptySubscriber)
        empty.send(completion: .failure(.oops))
        #expect(emptySubscriber.events == [.subscription("Buffer"), .failure(.oops)])

        // As in Combine: with no outstanding demand, buffered values are not waited for.
        let loaded = TestPublisher<Int, TestError>()
        let loadedSubscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { loadedSubscriber.cancel() }
        loaded.buffer(size: 3, prefetch: .byRequest, whenFull: .dropOldest).subscribe(loadedSubscriber)
        loaded.send(1)
        loaded.send(2)
        loaded.send(completion: .failure(.oops))
        try #require(loadedSubscriber.subscription).request(.max(5))
        #expect(loadedSubscriber.events == [.subscription("Buffer"), .failure(.oops)])
    }

    @Test func aFailureDuringADeliveryWaitsForTheValuesAlreadyDemanded() throws {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: nil,
            onValue: { [unowned publisher] _ in
                publisher.send(completion: .failure(.oops))
                return .none
            })
        defer { subscriber.cancel() }
        publisher.buffer(size: 5, prefetch: .byRequest, whenFull: .dropOldest).subscribe(subscriber)
        for value in 1...5 { publisher.send(value) }
        try #require(subscriber.subscription).request(.max(3))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1), .value(2), .value(3), .failure(.oops)])
        #expect(subscriber.orderViolations == 0)
    }

    @Test func cancelDiscardsTheBufferAndCancelsTheUpstream() throws {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        publisher.buffer(size: 3, prefetch: .keepFull, whenFull: .dropOldest).subscribe(subscriber)
        publisher.send(1)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(3))
        #expect(publisher.send(2) == .none)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Buffer")])
        #expect(publisher.calls == [.request(.max(3)), .cancel])
    }

    @Test func aSecondSubscriptionIsCancelledAndSizeZeroKeepsNothing() {
        let late = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        late.buffer(size: 0, prefetch: .keepFull, whenFull: .dropOldest).subscribe(subscriber)
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        late.sendSubscription(TestPublisher<Int, Never>.TestSubscription(publisher: first))
        late.sendSubscription(TestPublisher<Int, Never>.TestSubscription(publisher: second))
        #expect(first.calls == [], "a buffer of size 0 asks for nothing")
        #expect(second.calls == [.cancel])
        #expect(late.send(1) == Subscribers.Demand.none)
        late.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Buffer"), .finished])
    }

    /// As Combine's, a buffer forgets a cancel that comes before its upstream's subscription (unreachable
    /// for a downstream, which gets the buffer's subscription only after the upstream's), then prefetches
    /// from the late subscription and hands itself downstream as usual.
    @Test(arguments: [Publishers.PrefetchStrategy.keepFull, .byRequest])
    func aCancelBeforeTheSubscriptionIsForgottenAsInCombine(prefetch: Publishers.PrefetchStrategy) {
        let late = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        late.buffer(size: 2, prefetch: prefetch, whenFull: .dropNewest).subscribe(subscriber)
        late.subscriberAsSubscription?.cancel()
        late.sendSubscription()
        #expect(late.subscription.calls == [.request(prefetch == .keepFull ? .max(2) : .unlimited)])
        #expect(late.send(1) == .none)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1)])
    }

    /// As Combine's, a `keepFull` buffer goes on asking the upstream to refill after it has ended — cancelled
    /// on overflow, or finished — and a downstream cancel still reaches that upstream (all no-ops for an ended
    /// subscription); the downstream gets nothing after the completion.
    @Test func anEndedUpstreamIsStillAskedToRefillAsInCombine() {
        let overflowing = TestPublisher<Int, TestError>()
        let failed = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { failed.cancel() }
        overflowing.buffer(size: 2, prefetch: .keepFull, whenFull: .customError { .oops }).subscribe(failed)
        for value in 0..<4 { #expect(overflowing.send(value) == .none) }
        #expect(overflowing.calls == [.request(.max(2)), .cancel])
        failed.request(.max(3))
        #expect(failed.events == [.subscription("Buffer"), .value(0), .value(1), .failure(.oops)])
        #expect(overflowing.calls == [.request(.max(2)), .cancel, .request(.max(2))])
        failed.request(.max(1))
        #expect(overflowing.calls == [.request(.max(2)), .cancel, .request(.max(2))])

        let finishing = TestPublisher<Int, TestError>()
        let finished = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { finished.cancel() }
        finishing.buffer(size: 2, prefetch: .keepFull, whenFull: .dropNewest).subscribe(finished)
        #expect(finishing.send(0) == .none)
        #expect(finishing.send(1) == .none)
        finishing.send(completion: .finished)
        finished.request(.max(1))
        #expect(finishing.calls == [.request(.max(2)), .request(.max(1))])
        finished.cancel()
        #expect(finishing.calls == [.request(.max(2)), .request(.max(1)), .cancel])
        #expect(finished.events == [.subscription("Buffer"), .value(0)])
    }

    @Test func keepFullHonoursDemandOneAtATimeFromASynchronousSource() {
        let source = SequencingSyncPublisher<Int, TestError>(Array(0..<20_000), completion: .failure(.oops))
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        source.buffer(size: 16, prefetch: .keepFull, whenFull: .customError { .other }).subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<20_000))
        #expect(subscriber.completion == .failure(.oops))
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
        // The 16 prefetched values are refilled by one request; later values arrive one at a time and are
        // refilled by the demand each returns.
        #expect(source.log.calls == [.request(.max(16)), .request(.max(16))])
    }

    @Test func byRequestTakesEverythingASynchronousSourceHasAtOnce() {
        let overflowing = TestSubscriber<Int, TestError>.oneAtATime()
        defer { overflowing.cancel() }
        SequencingSyncPublisher<Int, TestError>(Array(0..<100))
            .buffer(size: 16, prefetch: .byRequest, whenFull: .customError { .other })
            .subscribe(overflowing)
        #expect(overflowing.values.elementsEqual(0..<16))
        #expect(overflowing.completion == .failure(.other))

        let dropping = TestSubscriber<Int, TestError>.oneAtATime()
        defer { dropping.cancel() }
        SequencingSyncPublisher<Int, TestError>(Array(0..<100))
            .buffer(size: 16, prefetch: .byRequest, whenFull: .dropNewest)
            .subscribe(dropping)
        #expect(dropping.values.elementsEqual(0..<16))
        #expect(dropping.completion == .finished)
        #expect(dropping.demandViolations == 0)
    }

    @Test func mirrorAndDescription() throws {
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        publisher.buffer(size: 13, prefetch: .keepFull, whenFull: .dropNewest).subscribe(subscriber)
        for value in 1...20 { publisher.send(value) }
        _ = subscriber.subscription.map { $0.request(.max(2)) }
        let subscription = try #require(subscriber.subscription)
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Buffer")
        let mirror = try #require((subscription as? any CustomReflectable)?.customMirror)
        #expect(mirror.children.map(\.label) == ["values", "state", "downstreamDemand", "terminal"])
        #expect(mirror.children.first?.value as? [Int] == Array(3...13))
    }

    @Test func concurrentValuesAndRequestsKeepOrderAndDemand() {
        for _ in 0..<50 {
            let publisher = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            defer { subscriber.cancel() }
            publisher.buffer(size: 10_000, prefetch: .byRequest, whenFull: .dropNewest).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 5) { index in
                if index == 0 {
                    for value in 0..<1_000 { publisher.send(value) }
                } else {
                    for _ in 0..<250 { subscriber.request(.max(1)) }
                }
            }
            #expect(subscriber.values.elementsEqual(0..<1_000))
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.orderViolations == 0)
        }
    }

    @Test func concurrentCancelStopsDelivery() {
        for _ in 0..<100 {
            let publisher = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>()
            publisher.buffer(size: 100, prefetch: .keepFull, whenFull: .dropOldest).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<200 { publisher.send(value) }
                    publisher.send(completion: .finished)
                } else {
                    subscriber.cancel()
                }
            }
            #expect(subscriber.orderViolations == 0)
            #expect(subscriber.values.elementsEqual(0..<subscriber.values.count))
        }
    }
}
