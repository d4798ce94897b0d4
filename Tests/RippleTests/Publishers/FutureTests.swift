import Dispatch
import Testing

@testable import Ripple

@Suite("Future")
struct FutureTests {
    private typealias Sut = Future<Int, TestError>

    private func makeFuture() -> (Sut, PromiseBox<Int, TestError>) {
        let box = PromiseBox<Int, TestError>()
        let future = Sut { box.promise = $0 }
        return (future, box)
    }

    private func parent(of subscription: any Subscription) -> Sut? {
        Mirror(reflecting: subscription).children.first { $0.label == "parent" }.flatMap { $0.value as? Sut }
    }

    @Test func runsTheClosureOnceAtInit() {
        var runs = 0
        let future = Sut { _ in runs += 1 }
        #expect(runs == 1)
        let first = TestSubscriber<Int, TestError>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, TestError>()
        defer { second.cancel() }
        future.subscribe(first)
        future.subscribe(second)
        #expect(runs == 1)
    }

    @Test func deliversASuccessToAWaitingSubscriber() throws {
        let (future, box) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Future")])
        let subscription = try #require(subscriber.subscription)
        #expect(parent(of: subscription) === future)
        box.fulfil(.success(42))
        #expect(subscriber.events == [.subscription("Future"), .value(42), .finished])
        #expect(parent(of: subscription) == nil)
    }

    @Test func keepsItsFutureWhileTheResultIsDeliveredAsCombineDoes() throws {
        final class Seen: @unchecked Sendable {
            var subscription: (any Subscription)?
            var parents: [Sut?] = []
        }
        let seen = Seen()
        let (future, box) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>(
            onValue: { _ in
                seen.parents.append(seen.subscription.flatMap { self.parent(of: $0) })
                return .none
            },
            onCompletion: { _ in seen.parents.append(seen.subscription.flatMap { self.parent(of: $0) }) }
        )
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        seen.subscription = subscriber.subscription
        box.fulfil(.success(42))
        #expect(seen.parents.count == 2 && seen.parents.allSatisfy { $0 === future })
        #expect(parent(of: try #require(seen.subscription)) == nil)
        // A result delivered on a request keeps the future, as in Combine.
        let late = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { late.cancel() }
        future.subscribe(late)
        let lateSubscription = try #require(late.subscription)
        late.request(.max(1))
        #expect(late.events == [.subscription("Future"), .value(42), .finished])
        #expect(parent(of: lateSubscription) === future)
    }

    @Test func deliversAFailureToAWaitingSubscriberWithoutDemand() {
        let (future, box) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        box.fulfil(.failure(.oops))
        #expect(subscriber.events == [.subscription("Future"), .failure(.oops)])
    }

    @Test func onlyTheFirstResultCounts() {
        let (future, box) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        box.fulfil(.success(42))
        box.fulfil(.success(41))
        box.fulfil(.failure(.oops))
        #expect(subscriber.events == [.subscription("Future"), .value(42), .finished])
        let late = TestSubscriber<Int, TestError>()
        defer { late.cancel() }
        future.subscribe(late)
        #expect(late.events == [.subscription("Future"), .value(42), .finished])
    }

    @Test func aSuccessWaitsForDemand() throws {
        let (future, box) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        box.fulfil(.success(42))
        #expect(subscriber.events == [.subscription("Future")])
        let subscription = try #require(subscriber.subscription)
        let mirror = Mirror(reflecting: subscription)
        #expect(mirror.children.map(\.label) == ["parent", "downstream", "hasAnyDemand", "subject"])
        #expect(mirror.children.first { $0.label == "hasAnyDemand" }?.value as? Bool == false)
        let playground = try #require(subscription as? any CustomPlaygroundDisplayConvertible)
        #expect(playground.playgroundDescription as? String == "Future")
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Future"), .value(42), .finished])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func subscribingAfterResolution() {
        let succeeded = Sut { $0(.success(7)) }
        let eager = TestSubscriber<Int, TestError>()
        defer { eager.cancel() }
        succeeded.subscribe(eager)
        #expect(eager.events == [.subscription("Future"), .value(7), .finished])
        let lazy = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { lazy.cancel() }
        succeeded.subscribe(lazy)
        #expect(lazy.events == [.subscription("Future")])
        lazy.request(.max(1))
        #expect(lazy.events == [.subscription("Future"), .value(7), .finished])

        let failed = Sut { $0(.failure(.oops)) }
        let undemanding = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { undemanding.cancel() }
        failed.subscribe(undemanding)
        #expect(undemanding.events == [.subscription("Future"), .failure(.oops)])
        let demanding = TestSubscriber<Int, TestError>()
        defer { demanding.cancel() }
        failed.subscribe(demanding)
        #expect(demanding.events == [.subscription("Future"), .failure(.oops)])
    }

    @Test func cancellationStopsDelivery() {
        let (future, box) = makeFuture()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(1))
        box.fulfil(.success(42))
        #expect(subscriber.events == [.subscription("Future")])
    }

    @Test func everySubscriberGetsTheResultInSubscriptionOrder() {
        let (future, box) = makeFuture()
        var order: [Int] = []
        let subscribers = (0..<3).map { index in
            TestSubscriber<Int, TestError>(onValue: { _ in
                order.append(index)
                return .none
            })
        }
        subscribers.forEach(future.subscribe)
        box.fulfil(.success(9))
        #expect(order == [0, 1, 2])
        for subscriber in subscribers {
            #expect(subscriber.events == [.subscription("Future"), .value(9), .finished])
        }
    }

    @Test func reentrancyFromReceive() {
        let (future, box) = makeFuture()
        let nested = TestSubscriber<Int, TestError>()
        defer { nested.cancel() }
        let subscriber = TestSubscriber<Int, TestError>(
            onValue: { value in
                box.fulfil(.success(value + 1))  // ignored: already fulfilled
                future.subscribe(nested)  // a new subscriber gets the result at once
                return .none
            },
            onCompletion: { _ in box.fulfil(.failure(.oops)) }
        )
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        box.fulfil(.success(0))
        #expect(subscriber.events == [.subscription("Future"), .value(0), .finished])
        #expect(nested.events == [.subscription("Future"), .value(0), .finished])
    }

    @Test(arguments: [0, 1, 2])
    func releasesEverythingOnTermination(reason: Int) {
        weak var weakFuture: Sut?
        weak var weakSubscriber: TestSubscriber<Int, TestError>?
        do {
            let (future, box) = makeFuture()
            weakFuture = future
            do {
                let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
                weakSubscriber = subscriber
                future.subscribe(subscriber)
                switch reason {
                case 0: subscriber.cancel()
                case 1: box.fulfil(.success(1))
                default: box.fulfil(.failure(.oops))
                }
            }
            #expect(weakSubscriber == nil)
            box.promise = nil
        }
        #expect(weakFuture == nil)
    }

    @Test func zeroDemandTraps() async {
        await #expect(processExitsWith: .failure) {
            let future = Future<Int, Never> { _ in }
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            future.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
    }

    @Test func promiseRacingSubscribersDeliversExactlyOnceEach() {
        for round in 0..<50 {
            let (future, box) = makeFuture()
            let count = 16
            let subscribers = (0..<count).map { _ in TestSubscriber<Int, TestError>(initialDemand: nil) }
            let failing = round.isMultiple(of: 2)
            DispatchQueue.concurrentPerform(iterations: count + 1) { index in
                if index == count {
                    box.fulfil(failing ? .failure(.oops) : .success(round))
                } else {
                    future.subscribe(subscribers[index])
                    subscribers[index].request(.max(1))
                    subscribers[index].request(.max(1))
                }
            }
            for subscriber in subscribers {
                let expected: [Event<Int, TestError>] =
                    failing
                    ? [.subscription("Future"), .failure(.oops)]
                    : [.subscription("Future"), .value(round), .finished]
                #expect(subscriber.events == expected)
                #expect(subscriber.orderViolations == 0)
            }
        }
    }

    @Test func failureRacingSubscriptionNeverPrecedesIt() {
        for _ in 0..<100 {
            let (future, box) = makeFuture()
            let subscribers = (0..<8).map { _ in TestSubscriber<Int, TestError>(initialDemand: nil) }
            DispatchQueue.concurrentPerform(iterations: 9) { index in
                if index == 8 {
                    box.fulfil(.failure(.other))
                } else {
                    future.subscribe(subscribers[index])
                }
            }
            for subscriber in subscribers {
                #expect(subscriber.events == [.subscription("Future"), .failure(.other)])
                #expect(subscriber.orderViolations == 0)
            }
        }
    }

    @Test func cancelRacingThePromise() {
        for _ in 0..<100 {
            let (future, box) = makeFuture()
            let subscriber = TestSubscriber<Int, TestError>()
            future.subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { box.fulfil(.success(1)) } else { subscriber.cancel() }
            }
            let events = subscriber.events
            #expect(events == [.subscription("Future")] || events == [.subscription("Future"), .value(1), .finished])
        }
    }
}
