import Testing

@testable import Ripple

@Suite("Scan, TryScan")
struct ScanTests {
    @Test func scanPublishesEveryRunningResultAndPassesTheSubscriptionThrough() {
        let upstream = TransformingNamingPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        let scan = upstream.scan(10, +)
        #expect(scan.initialResult == 10)
        #expect(scan.nextPartialResult(1, 2) == 3)
        scan.subscribe(subscriber)
        #expect(upstream.base.send(1) == .max(1))
        #expect(upstream.base.send(2) == .max(1))
        #expect(upstream.base.send(3) == .max(1))
        upstream.base.send(completion: .failure(.oops))
        #expect(
            subscriber.events == [
                .subscription("TestSubscription"), .value(11), .value(13), .value(16), .failure(.oops),
            ])
        #expect(upstream.base.calls == [.request(.max(2))])
        #expect(upstream.subscriberNames == ["Scan"])
        #expect(upstream.subscribers[0].customMirror.children.map(\.label) == ["downstream", "result"])
        #expect(upstream.subscribers[0].customMirror.children.map { "\($0.value)" }.last == "16")
    }

    @Test func tryScanReflectsItsResultAsCombineDoes() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.tryScan(0, +).mapError(transformingTestError).subscribe(subscriber)
        func children() -> [String] {
            upstream.subscribers[0].customMirror.children.map { "\($0.label ?? "")=\($0.value)" }
        }
        #expect(children().map { $0.prefix { $0 != "=" } } == ["downstream", "status", "result"])
        #expect(children().last == "result=0")
        upstream.subscribers[0].receive(subscription: TransformingRecordingSubscription())
        _ = upstream.subscribers[0].receive(5)
        #expect(children().last == "result=5")
    }

    @Test func eachSubscriptionStartsFromTheInitialResult() {
        let upstream = TestPublisher<Int, Never>()
        let scan = upstream.scan(0, +)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        scan.subscribe(first)
        upstream.send(1)
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        scan.subscribe(second)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(first.values == [1, 3])
        #expect(second.values == [2])
        #expect(second.completion == .finished)
    }

    @Test func tryScanHasItsOwnSubscriptionAndFailsOnThrow() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.tryScan(0) { sum, value in
            if value < 0 { throw TestError.oops }
            return sum + value
        }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(1))
        #expect(upstream.send(-1) == .none)
        #expect(subscriber.events == [.subscription("TryScan"), .value(1), .value(3), .failure(.oops)])
        // As in Combine, TryScan checks nothing on the value path: a misbehaving upstream's late value passes
        // (and the ended subscriber, like Combine's Sink, answers it with no demand).
        #expect(upstream.send(5) == .none)
        #expect(subscriber.events.last == .value(8))
        #expect(upstream.calls == [.request(.max(1)), .cancel])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func tryScanForwardsCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        let scan = upstream.tryScan(1, *)
        #expect(scan.initialResult == 1)
        scan.mapError(transformingTestError).subscribe(subscriber)
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("TryScan"), .value(3), .finished])
    }
}
