import Dispatch
import Testing

@testable import Ripple

@Suite("Transforming: re-entrancy")
struct TransformingReentrancyTests {
    /// A subscriber that cancels itself when it receives `value`.
    private static func cancelling<Input: Equatable>(on value: Input, initialDemand: Subscribers.Demand? = .unlimited)
        -> TestSubscriber<Input, TestError>
    {
        var cancelSelf: () -> Void = {}
        let subscriber = TestSubscriber<Input, TestError>(
            initialDemand: initialDemand,
            onValue: {
                if $0 == value { cancelSelf() }
                return .none
            })
        cancelSelf = { subscriber.cancel() }
        return subscriber
    }

    @Test func cancelInsideReceiveStopsAStepOperator() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = Self.cancelling(on: 2)
        upstream.tryFilter { _ in true }.mapError(transformingTestError).subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.send(3) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TryFilter"), .value(1), .value(2)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func requestInsideReceiveIsForwardedWithoutDeadlock() {
        let upstream = TestPublisher<Int, TestError>()
        var requestMore: () -> Void = {}
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(1),
            onValue: { _ in
                requestMore()
                return .none
            })
        defer { subscriber.cancel() }
        requestMore = { subscriber.request(.max(1)) }
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)
        #expect(upstream.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func cancelInsideTheResultSuppressesTheFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = Self.cancelling(on: 6)
        upstream.reduce(0, +).subscribe(subscriber)
        upstream.send(1)
        upstream.send(5)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Reduce"), .value(6)])

        let waiting = TestPublisher<Int, TestError>()
        let late = Self.cancelling(on: 3, initialDemand: nil)
        waiting.last().subscribe(late)
        waiting.send(3)
        waiting.send(completion: .finished)
        late.request(.max(1))
        #expect(late.events == [.subscription("Last"), .value(3)])
    }

    @Test func cancelInsideTheReplacementSuppressesTheFinish() {
        let failing = TestPublisher<Int, TestError>()
        let errorSubscriber = TestSubscriber<Int, Never>(onValue: { _ in .none })
        defer { errorSubscriber.cancel() }
        var cancelError: () -> Void = {}
        let replaceErrorSubscriber = AnySubscriber<Int, Never>(
            receiveSubscription: { errorSubscriber.receive(subscription: $0) },
            receiveValue: { value in
                let demand = errorSubscriber.receive(value)
                cancelError()
                return demand
            },
            receiveCompletion: { errorSubscriber.receive(completion: $0) }
        )
        cancelError = { errorSubscriber.cancel() }
        failing.replaceError(with: 9).subscribe(replaceErrorSubscriber)
        failing.send(completion: .failure(.oops))
        #expect(errorSubscriber.events == [.subscription("ReplaceError"), .value(9)])

        let emptyUpstream = TestPublisher<Int, TestError>()
        let emptySubscriber = Self.cancelling(on: 4, initialDemand: nil)
        emptyUpstream.replaceEmpty(with: 4).subscribe(emptySubscriber)
        emptyUpstream.send(completion: .finished)
        emptySubscriber.request(.max(1))
        #expect(emptySubscriber.events == [.subscription("ReplaceEmpty"), .value(4)])
    }

    @Test func cancelInsideTheLastGroupSuppressesTheFinish() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = Self.cancelling(on: [1])
        upstream.collect(2).subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("CollectByCount"), .value([1])])
    }
}

@Suite("Transforming: concurrency")
struct TransformingConcurrencyTests {
    /// Runs `first` and `second` at the same time on two threads.
    private static func race(_ first: @Sendable () -> Void, _ second: @Sendable () -> Void) {
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            if index == 0 { first() } else { second() }
        }
    }

    @Test func reduceDeliversExactlyOnceWhenTheFinishRacesTheRequest() {
        for _ in 0..<300 {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            upstream.reduce(0, +).subscribe(subscriber)
            upstream.send(2)
            Self.race({ upstream.send(completion: .finished) }, { subscriber.request(.max(1)) })
            #expect(subscriber.events == [.subscription("Reduce"), .value(2), .finished])
        }
    }

    @Test func firstDeliversExactlyOnceWhenTheValueRacesTheRequest() {
        for _ in 0..<300 {
            let upstream = TestPublisher<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            upstream.first().subscribe(subscriber)
            Self.race({ upstream.send(5) }, { subscriber.request(.max(1)) })
            #expect(subscriber.events == [.subscription("First"), .value(5), .finished])
            #expect(upstream.calls.filter { $0 == .cancel }.count == 1)
        }
    }

    @Test func replacementsDeliverExactlyOnceWhenTheCompletionRacesTheRequest() {
        for _ in 0..<300 {
            let failing = TestPublisher<Int, TestError>()
            let errorSubscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            failing.replaceError(with: 1).subscribe(errorSubscriber)
            let empty = TestPublisher<Int, TestError>()
            let emptySubscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            empty.replaceEmpty(with: 2).subscribe(emptySubscriber)
            Self.race(
                {
                    failing.send(completion: .failure(.oops))
                    empty.send(completion: .finished)
                },
                {
                    errorSubscriber.request(.max(1))
                    emptySubscriber.request(.max(1))
                }
            )
            #expect(errorSubscriber.events == [.subscription("ReplaceError"), .value(1), .finished])
            #expect(emptySubscriber.events == [.subscription("ReplaceEmpty"), .value(2), .finished])
        }
    }

    @Test func cancelRacingTheCompletionEndsAtMostOnce() {
        for round in 0..<300 {
            let upstream = TestPublisher<Int, TestError>()
            let reduced = TestSubscriber<Int, TestError>()
            let mapped = TestSubscriber<Int, TestError>()
            let grouped = TestSubscriber<[Int], TestError>()
            upstream.count().subscribe(reduced)
            upstream.tryMap { $0 }.mapError(transformingTestError).subscribe(mapped)
            upstream.collect(3).subscribe(grouped)
            upstream.send(round)
            Self.race(
                { upstream.send(completion: .finished) },
                {
                    reduced.cancel()
                    mapped.cancel()
                    grouped.cancel()
                }
            )
            #expect(reduced.orderViolations == 0 && mapped.orderViolations == 0 && grouped.orderViolations == 0)
            #expect(reduced.events.count <= 3 && mapped.events.count <= 3 && grouped.events.count <= 3)
        }
    }

    @Test func valuesFlowWhileOtherThreadsRequestAndCancel() async {
        let upstream = TestPublisher<Int, Never>()
        let stepped = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { stepped.cancel() }
        let skipped = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { skipped.cancel() }
        // Unlimited: this upstream ignores demand, and replaceError traps on a value nobody asked for.
        let windowed = TestSubscriber<Int, Never>(initialDemand: .unlimited)
        defer { windowed.cancel() }
        upstream.tryFilter { $0.isMultiple(of: 2) }.mapError(transformingTestError).subscribe(stepped)
        upstream.output(in: 10..<5000).subscribe(skipped)
        upstream.replaceError(with: -1).subscribe(windowed)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for value in 0..<2000 { upstream.send(value) }
                upstream.send(completion: .finished)
            }
            for _ in 0..<3 {
                group.addTask {
                    for _ in 0..<500 {
                        stepped.request(.max(1))
                        skipped.request(.max(1))
                        windowed.request(.max(1))
                    }
                }
            }
            group.addTask {
                for _ in 0..<100 { await Task.yield() }
                stepped.cancel()
            }
        }
        #expect(stepped.orderViolations == 0 && skipped.orderViolations == 0 && windowed.orderViolations == 0)
        #expect(skipped.completion == .finished)
        #expect(windowed.completion == .finished)
        #expect(stepped.values.allSatisfy { $0.isMultiple(of: 2) })
        #expect(skipped.values.allSatisfy { $0 >= 10 })
    }
}
