import Testing

@testable import Ripple

@Suite("Empty, Fail, Deferred")
struct EmptyFailDeferredTests {
    @Test func emptyCompletesImmediatelyOrNever() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Empty(completeImmediately: true, outputType: Int.self, failureType: TestError.self).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .finished])

        let silent = TestSubscriber<Int, TestError>()
        defer { silent.cancel() }
        Empty<Int, TestError>(completeImmediately: false).subscribe(silent)
        #expect(silent.events == [.subscription("Empty")])
        silent.request(.max(1))
        silent.cancel()
        #expect(silent.events == [.subscription("Empty")])
    }

    @Test func emptyDefaultsAndEquality() {
        #expect(Empty<Int, Never>().completeImmediately)
        #expect(Empty(outputType: Int.self, failureType: TestError.self).completeImmediately)
        #expect(Empty<Int, any Error>() == Empty<Int, any Error>(completeImmediately: true))
        #expect(Empty<Int, any Error>(completeImmediately: false) == Empty(completeImmediately: false))
        #expect(Empty<Int, any Error>(completeImmediately: true) != Empty(completeImmediately: false))
    }

    @Test func emptyCancelledInReceiveSubscriptionStillFinishes() {
        // As in Combine: the empty subscription ignores cancel, and completion follows at once.
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        let cancelling = AnySubscriber<Int, TestError>(
            receiveSubscription: { subscription in
                subscriber.receive(subscription: subscription)
                subscription.cancel()
            },
            receiveCompletion: subscriber.receive(completion:)
        )
        Empty<Int, TestError>().subscribe(cancelling)
        #expect(subscriber.events == [.subscription("Empty"), .finished])
    }

    @Test func failFailsAtOnceWithoutDemand() {
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        Fail<Int, TestError>(error: .oops).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .failure(.oops)])
    }

    @Test func failInitialisersAndEquality() {
        let fail = Fail(outputType: String.self, failure: TestError.other)
        #expect(fail.error == .other)
        #expect(fail == Fail<String, TestError>(error: .other))
        #expect(fail != Fail<String, TestError>(error: .oops))
        var completions: [Subscribers.Completion<TestError>] = []
        _ = fail.sink(receiveCompletion: { completions.append($0) }, receiveValue: { _ in })
        #expect(completions == [.failure(.other)])
    }

    @Test func deferredCreatesAPublisherPerSubscriber() {
        var created = 0
        let upstream = TestPublisher<Int, TestError>()
        let deferred = Deferred { () -> TestPublisher<Int, TestError> in
            created += 1
            return upstream
        }
        #expect(created == 0)

        let first = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { first.cancel() }
        deferred.subscribe(first)
        #expect(created == 1)
        #expect(first.events == [.subscription("TestSubscription")])
        #expect(upstream.calls == [.request(.max(2))])

        let second = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { second.cancel() }
        deferred.subscribe(second)
        #expect(created == 2)
        #expect(upstream.subscriptions == 2)

        upstream.send(1)
        upstream.send(completion: .failure(.oops))
        #expect(first.events == [.subscription("TestSubscription"), .value(1), .failure(.oops)])
    }

    @Test func deferredWithFreshSequences() {
        var counter = 0
        let deferred = Deferred { () -> Publishers.Sequence<[Int], Never> in
            counter += 1
            return [counter, counter * 10].publisher
        }
        var values: [Int] = []
        _ = deferred.sink { values.append($0) }
        _ = deferred.sink { values.append($0) }
        #expect(values == [1, 10, 2, 20])
        #expect(deferred.createPublisher().sequence == [3, 30])
    }
}
