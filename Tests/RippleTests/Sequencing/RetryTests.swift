import Dispatch
import Synchronization
import Testing

@testable import Ripple

/// A publisher that fails synchronously, on subscription, for its first `failures` subscriptions (all of
/// them when `nil`), then publishes `values` and finishes.
private final class FlakyPublisher: Publisher, Sendable {
    typealias Output = Int
    typealias Failure = TestError
    private let attempts = Atomic<Int>(0)
    let failures: Int?
    let values: [Int]

    init(failures: Int?, values: [Int] = [1, 2, 3]) {
        self.failures = failures
        self.values = values
    }

    var subscriptions: Int { attempts.load(ordering: .relaxed) }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        let attempt = attempts.add(1, ordering: .relaxed).newValue
        if let failures, attempt > failures {
            SequencingSyncPublisher<Int, TestError>(values).receive(subscriber: subscriber)
        } else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: .failure(.oops))
        }
    }
}

private struct EquatablePublisher: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = Never
    let id: Int
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}

@Suite("retry (Publishers.Retry)")
struct RetryTests {
    @Test func aSubscriberThatKeepsItsSubscriptionIsReleasedOnceTheStreamEnds() {
        final class Keeper: Subscriber, @unchecked Sendable {
            typealias Input = Int
            typealias Failure = TestError
            var subscription: (any Subscription)?
            func receive(subscription: any Subscription) { self.subscription = subscription }
            func receive(_ input: Int) -> Subscribers.Demand { .none }
            func receive(completion: Subscribers.Completion<TestError>) {}
        }
        for cancels in [false, true] {
            weak var weakKeeper: Keeper?
            do {
                let subject = PassthroughSubject<Int, TestError>()
                let keeper = Keeper()
                weakKeeper = keeper
                subject.retry(2).subscribe(keeper)
                if cancels {
                    keeper.subscription?.cancel()
                } else {
                    subject.send(completion: .failure(.oops))
                }
            }
            #expect(weakKeeper == nil, "as in Combine, retry lets go of its subscriber (cancelled: \(cancels))")
        }
    }

    @Test func anEndedRetryKeepsNothingOfItsUpstream() {
        // A publisher that keeps its subscribers (as TestPublisher does) would keep a retry that kept it.
        for cancels in [false, true] {
            weak var weakUpstream: TestPublisher<Int, TestError>?
            let subscriber = TestSubscriber<Int, TestError>()
            do {
                let upstream = TestPublisher<Int, TestError>()
                weakUpstream = upstream
                upstream.retry(1).subscribe(subscriber)
                if cancels {
                    subscriber.cancel()
                } else {
                    upstream.send(completion: .failure(.oops))
                    upstream.send(completion: .failure(.other))
                }
            }
            #expect(
                weakUpstream == nil, "as in Combine, an ended retry lets go of its upstream (cancelled: \(cancels))")
            #expect(subscriber.events.count == (cancels ? 1 : 2))
        }
    }

    @Test func subscribesAgainWithTheDemandLeftUntilRetriesRunOut() throws {
        let publisher = SequencingLatestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(5))
        defer { subscriber.cancel() }
        let retry = publisher.retry(3)
        #expect(retry.retries == 3)
        retry.subscribe(subscriber)
        #expect(publisher.subscriptions == 1)
        for attempt in 1...4 {
            #expect(publisher.send(attempt) == .none)
            publisher.send(completion: .failure(attempt == 4 ? .other : .oops))
        }
        #expect(publisher.subscriptions == 4)
        #expect(publisher.calls == [.request(.max(5)), .request(.max(4)), .request(.max(3)), .request(.max(2))])
        #expect(
            subscriber.events == [.subscription("Retry"), .value(1), .value(2), .value(3), .value(4), .failure(.other)])
        publisher.send(5)
        publisher.send(completion: .failure(.oops))
        try #require(subscriber.subscription).request(.max(9))
        #expect(publisher.subscriptions == 4)
        #expect(publisher.calls.count == 4)
        #expect(subscriber.events.count == 6)
    }

    @Test func retryZeroPassesTheFailureOn() {
        let publisher = SequencingLatestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        publisher.retry(0).subscribe(subscriber)
        publisher.send(1)
        publisher.send(completion: .failure(.oops))
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .failure(.oops)])
        #expect(publisher.subscriptions == 1)
        #expect(publisher.calls == [.request(.max(1))])
    }

    @Test func finishingPassesThroughAfterARetry() {
        let publisher = SequencingLatestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(4))
        defer { subscriber.cancel() }
        publisher.retry(3).subscribe(subscriber)
        publisher.send(1)
        publisher.send(2)
        publisher.send(completion: .failure(.oops))
        publisher.send(3)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .value(2), .value(3), .finished])
        #expect(publisher.calls == [.request(.max(4)), .request(.max(2))])
    }

    @Test func demandReturnedForAValueIsRequestedFromTheCurrentAttempt() {
        let publisher = SequencingLatestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(3), onValue: { .max($0) })
        defer { subscriber.cancel() }
        publisher.retry(5).subscribe(subscriber)
        #expect(publisher.send(5) == .none)
        #expect(publisher.calls == [.request(.max(3)), .request(.max(5))])
        publisher.send(completion: .failure(.oops))
        #expect(publisher.calls == [.request(.max(3)), .request(.max(5)), .request(.max(7))])
    }

    @Test func cancelCancelsTheCurrentAttemptAndStopsRetrying() throws {
        let publisher = SequencingLatestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        publisher.retry(3).subscribe(subscriber)
        publisher.send(completion: .failure(.oops))
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(3))
        #expect(publisher.send(1) == .none)
        publisher.send(completion: .failure(.oops))
        #expect(publisher.subscriptions == 2)
        #expect(publisher.calls == [.request(.max(2)), .request(.max(2)), .cancel])
        #expect(subscriber.events == [.subscription("Retry")])
    }

    @Test func synchronousFailuresLoopInsteadOfRecursing() {
        let flaky = FlakyPublisher(failures: 100_000)
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        Publishers.Retry(upstream: flaky, retries: nil).subscribe(subscriber)
        #expect(flaky.subscriptions == 100_001)
        #expect(subscriber.events == [.subscription("Retry"), .value(1), .value(2), .value(3), .finished])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func negativeRetriesMeanNoLimitAndFiniteRetriesRunOut() {
        let unlimited = FlakyPublisher(failures: 1_000)
        let patient = TestSubscriber<Int, TestError>()
        defer { patient.cancel() }
        unlimited.retry(-1).subscribe(patient)
        #expect(patient.values == [1, 2, 3])

        let limited = FlakyPublisher(failures: 5)
        let impatient = TestSubscriber<Int, TestError>()
        defer { impatient.cancel() }
        limited.retry(2).subscribe(impatient)
        #expect(limited.subscriptions == 3)
        #expect(impatient.events == [.subscription("Retry"), .failure(.oops)])
    }

    @Test func aLateSecondSubscriptionIsCancelled() {
        let publisher = SequencingLatestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        let retry = publisher.retry(1)
        retry.subscribe(subscriber)
        let extra = TestPublisher<Int, TestError>()
        publisher.sendSubscription(TestPublisher<Int, TestError>.TestSubscription(publisher: extra))
        #expect(extra.calls == [.cancel])
    }

    @Test func descriptionsAndEquality() throws {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        SequencingLatestPublisher<Int, TestError>().retry(1).subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect((subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Retry")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(EquatablePublisher(id: 1).retry(2) == EquatablePublisher(id: 1).retry(2))
        #expect(EquatablePublisher(id: 1).retry(2) != EquatablePublisher(id: 1).retry(3))
    }

    @Test func cancelFromAnotherThreadStopsAnEndlessRetryLoop() {
        final class Capturing: Subscriber, @unchecked Sendable {
            typealias Input = Int
            typealias Failure = TestError
            let ready = DispatchSemaphore(value: 0)
            var subscription: (any Subscription)?
            func receive(subscription: any Subscription) {
                self.subscription = subscription
                ready.signal()
            }
            func receive(_ input: Int) -> Subscribers.Demand { .none }
            func receive(completion: Subscribers.Completion<TestError>) {}
        }
        let flaky = FlakyPublisher(failures: nil)
        let subscriber = Capturing()
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            Publishers.Retry(upstream: flaky, retries: nil).subscribe(subscriber)
            done.signal()
        }
        subscriber.ready.wait()
        subscriber.subscription?.cancel()
        done.wait()
        #expect(flaky.subscriptions >= 1)
    }
}
