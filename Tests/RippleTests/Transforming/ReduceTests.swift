import Testing

@testable import Ripple

/// What a reducing operator did with `values` followed by `completion`, the downstream requesting only
/// afterwards.
struct ReductionRun<Output: Equatable> {
    /// Events before the downstream's first request.
    var beforeRequest: [Event<Output, TestError>]
    /// All events once the downstream has requested `.max(1)`.
    var events: [Event<Output, TestError>]
    /// The upstream's calls at the end.
    var calls: [TestPublisher<Int, TestError>.Call]
    /// The upstream's answers to each value.
    var answers: [Subscribers.Demand]
}

/// Drives `make(upstream)` with `values` and `completion` while the downstream has no demand, then requests.
func runReduction<P: Publisher>(
    _ values: [Int],
    then completion: Subscribers.Completion<TestError> = .finished,
    _ make: (TestPublisher<Int, TestError>) -> P
) -> ReductionRun<P.Output> where P.Output: Equatable, P.Failure == TestError {
    let upstream = TestPublisher<Int, TestError>()
    let subscriber = TestSubscriber<P.Output, TestError>(initialDemand: nil)
    make(upstream).subscribe(subscriber)
    let answers = values.map { upstream.send($0) }
    upstream.send(completion: completion)
    let before = subscriber.events
    subscriber.request(.max(1))
    subscriber.request(.max(1))
    upstream.send(completion: .finished)
    return ReductionRun(beforeRequest: before, events: subscriber.events, calls: upstream.calls, answers: answers)
}

/// A publisher used to check the `Equatable` conformances.
struct TransformingEquatableSource: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = Never
    let id: Int
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
}

@Suite("Reduce, TryReduce")
struct ReduceTests {
    @Test func publishesTheFoldOnceFinishedAndRequested() {
        let run = runReduction([1, 2, 3, 4, 5]) { $0.reduce(1, *) }
        #expect(run.beforeRequest == [.subscription("Reduce")])
        #expect(run.events == [.subscription("Reduce"), .value(120), .finished])
        #expect(run.calls == [.request(.unlimited)])
        #expect(run.answers == Array(repeating: .none, count: 5))
    }

    @Test func publishesAtOnceWhenAlreadyRequested() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        let reduce = upstream.reduce(0, +)
        #expect(reduce.initial == 0)
        #expect(reduce.nextPartialResult(2, 3) == 5)
        reduce.subscribe(subscriber)
        upstream.send(4)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Reduce"), .value(4), .finished])
        upstream.send(completion: .failure(.oops))
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("Reduce"), .value(4), .finished])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func anEmptyUpstreamPublishesTheInitialResult() {
        let run = runReduction([]) { $0.reduce(7, +) }
        #expect(run.events == [.subscription("Reduce"), .value(7), .finished])
    }

    @Test func requestsUnlimitedOnlyAfterHandingTheSubscriptionDown() {
        let upstream = TestPublisher<Int, TestError>()
        defer { upstream.detachSubscribers() }  // the subscriber below keeps the upstream
        var callsWhenSubscribed: [TestPublisher<Int, TestError>.Call]?
        upstream.reduce(0, +).subscribe(
            AnySubscriber<Int, TestError>(receiveSubscription: { _ in
                callsWhenSubscribed = upstream.calls
            }))
        #expect(callsWhenSubscribed == [])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func anUpstreamFailurePassesThroughWithoutDemand() {
        let run = runReduction([1, 2], then: .failure(.oops)) { $0.reduce(0, +) }
        #expect(run.beforeRequest == [.subscription("Reduce"), .failure(.oops)])
        #expect(run.events == [.subscription("Reduce"), .failure(.oops)])
        #expect(run.calls == [.request(.unlimited)])
    }

    @Test func cancelBeforeTheEndStopsEverything() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.reduce(0, +).subscribe(subscriber)
        upstream.send(1)
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstream.send(2) == .none)
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Reduce")])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func cancelAfterTheEndDropsTheWaitingResult() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.reduce(0, +).subscribe(subscriber)
        upstream.send(completion: .finished)
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Reduce")])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func cancelInsideReceiveSubscriptionSkipsTheUnlimitedRequest() {
        let upstream = TestPublisher<Int, TestError>()
        upstream.reduce(0, +).subscribe(AnySubscriber<Int, TestError>(receiveSubscription: { $0.cancel() }))
        #expect(upstream.calls == [.cancel])
    }

    @Test func aSecondSubscriptionIsCancelledAndReflection() {
        let upstream = TransformingNamingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.reduce(0, +).subscribe(subscriber)
        let second = TransformingRecordingSubscription()
        upstream.subscribers[0].receive(subscription: second)
        #expect(second.calls == [.cancel])
        #expect(upstream.subscriberNames == ["Reduce"])
        #expect(upstream.subscribers[0].customMirror.children.count == 4)
        #expect(
            (subscriber.subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "Reduce")
        upstream.base.send(3)
        upstream.base.send(completion: .finished)
        #expect(subscriber.values == [3])
    }

    @Test func tryReduceFoldsAndFailsOnThrow() {
        let ok = runReduction([1, 2, 3]) { $0.tryReduce(0, +).mapError(transformingTestError) }
        #expect(ok.events == [.subscription("TryReduce"), .value(6), .finished])

        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: nil,
            onCompletion: { [unowned upstream] _ in
                #expect(upstream.calls == [.request(.unlimited), .cancel])
            })
        defer { subscriber.cancel() }
        let tryReduce = upstream.tryReduce(1) { product, value in
            if value == 5 { throw TestError.oops }
            return product * value
        }
        #expect(tryReduce.initial == 1)
        tryReduce.mapError(transformingTestError).subscribe(subscriber)
        for value in 1...6 { upstream.send(value) }
        upstream.send(completion: .finished)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("TryReduce"), .failure(.oops)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])

        let failed = runReduction([1], then: .failure(.other)) { $0.tryReduce(0, +).mapError(transformingTestError) }
        #expect(failed.events == [.subscription("TryReduce"), .failure(.other)])
    }

    /// Combine's reduce-like operators forget a cancel that comes before their upstream's subscription (no
    /// downstream can send one: it gets the subscription only after the upstream's), then take the late
    /// subscription as usual: they hand it downstream, ask for `.unlimited` and publish their result.
    @Test func aCancelBeforeTheSubscriptionIsForgottenAsInCombine() {
        func check<P: Publisher>(_ name: String, _ result: P.Output, _ make: (LatePublisher<Int, Never>) -> P)
        where P.Output: Equatable, P.Failure == Never {
            let upstream = LatePublisher<Int, Never>()
            let subscriber = TestSubscriber<P.Output, Never>()
            defer { subscriber.cancel() }
            make(upstream).subscribe(subscriber)
            upstream.subscriberAsSubscription?.cancel()
            #expect(subscriber.history == [], "\(name)")
            upstream.sendSubscription()
            #expect(upstream.subscription.calls == [.request(.unlimited)], "\(name)")
            #expect(subscriber.events == [.subscription(name)], "\(name)")
            _ = upstream.send(3)
            upstream.send(completion: .finished)
            #expect(subscriber.events == [.subscription(name), .value(result), .finished], "\(name)")
        }
        check("Count", 1) { $0.count() }
        check("Reduce", 3) { $0.reduce(0, +) }
        check("First", 3) { $0.first() }
        check("Contains", true) { $0.contains(3) }
        check("Collect", [3]) { $0.collect() }
        check("Last", 3) { $0.last() }
        check("AllSatisfy", true) { $0.allSatisfy { $0 > 0 } }
        check("Comparison", 3) { $0.min() }
    }

    @Test func reduceLikeOperatorsReflectAsCombineDoes() {
        let upstream = LatePublisher<Int, Never>()
        let counted = TestSubscriber<Int, Never>()
        defer { counted.cancel() }
        upstream.count().subscribe(counted)
        func children() -> [String] {
            let mirror = upstream.erased.flatMap { $0 as? any CustomReflectable }?.customMirror
            return mirror?.children.map { "\($0.label ?? "")=\($0.value)" } ?? []
        }
        #expect(children().dropFirst() == ["result=Optional(0)", "initial=Optional(0)", "status=awaitingSubscription"])
        #expect(children().first?.hasPrefix("downstream=") == true)
        upstream.sendSubscription()
        _ = upstream.send(1)
        _ = upstream.send(2)
        #expect(
            children().dropFirst() == [
                "result=Optional(2)", "initial=Optional(0)", "status=subscribed(RecordingSubscription)",
            ])
        upstream.send(completion: .finished)
        #expect(children().last == "status=terminal")

        let collecting = LatePublisher<Int, Never>()
        let collected = TestSubscriber<[Int], Never>()
        defer { collected.cancel() }
        collecting.collect().subscribe(collected)
        collecting.sendSubscription()
        _ = collecting.send(1)
        let mirror = collecting.erased.flatMap { $0 as? any CustomReflectable }?.customMirror
        #expect(mirror?.children.map { "\($0.label ?? "")=\($0.value)" } == ["count=1"])
    }
}
