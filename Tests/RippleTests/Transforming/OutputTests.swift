import Testing

@testable import Ripple

@Suite("Output (output(at:), output(in:))")
struct OutputTests {
    @Test func rangesTranslateToCountableRanges() {
        let upstream = TransformingEquatableSource(id: 0)
        #expect(upstream.output(at: 89).range == 89..<90)
        #expect(upstream.output(in: ..<8).range == 0..<8)
        #expect(upstream.output(in: ...8).range == 0..<9)
        #expect(upstream.output(in: 8...).range == 8 ..< .max)
        #expect(upstream.output(in: 4..<5).range == 4..<5)
        #expect(upstream.output(in: 4...5).range == 4..<6)
        #expect(upstream.output(in: 1..<3) == upstream.output(in: 1...2))
        #expect(upstream.output(in: 1..<3) != upstream.output(in: 1..<4))
    }

    @Test func skipsBeforeTheRangeAndFinishesOnTheValueAfterIt() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: nil, onValue: { _ in .max(42) },
            onCompletion: { [unowned upstream] _ in
                #expect(upstream.calls == [.request(.max(31)), .request(.max(32)), .cancel])
            })
        defer { subscriber.cancel() }
        upstream.output(in: 3..<7).subscribe(subscriber)
        #expect([1, 2, 3].map { upstream.send($0) } == [.max(1), .max(1), .max(1)])
        #expect(subscriber.events == [.subscription("Output")])
        subscriber.request(.max(31))
        subscriber.request(.max(32))
        #expect(upstream.calls == [.request(.max(31)), .request(.max(32))])
        #expect([4, 5, 6, 7].map { upstream.send($0) } == [.max(42), .max(42), .max(42), .max(42)])
        #expect(subscriber.events == [.subscription("Output"), .value(4), .value(5), .value(6), .value(7)])
        #expect(upstream.send(8) == .none)
        #expect(upstream.send(9) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Output"), .value(4), .value(5), .value(6), .value(7), .finished])
        subscriber.request(.max(33))
        subscriber.cancel()
        #expect(upstream.calls == [.request(.max(31)), .request(.max(32)), .cancel])
    }

    @Test func outputAtOneIndex() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.output(at: 1).subscribe(subscriber)
        #expect(upstream.send(10) == .max(1))
        #expect(upstream.send(11) == .max(1))
        #expect(upstream.send(12) == .none)
        #expect(subscriber.events == [.subscription("Output"), .value(11), .finished])
        #expect(upstream.calls == [.request(.max(1)), .cancel])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func upstreamCompletionPassesThroughOnce() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.output(in: 1...).subscribe(subscriber)
        upstream.send(0)
        upstream.send(1)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .finished)
        #expect(upstream.send(2) == .none)
        #expect(subscriber.events == [.subscription("Output"), .value(1), .failure(.oops)])
    }

    @Test func cancelStopsEverything() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.output(in: 0..<5).subscribe(subscriber)
        upstream.send(0)
        subscriber.cancel()
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Output"), .value(0)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func secondSubscriptionAndReflection() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.output(at: 0).subscribe(subscriber)
        let second = TransformingRecordingSubscription()
        upstream.subscribers[0].receive(subscription: second)
        #expect(second.calls == [.cancel])
        #expect(upstream.subscriberNames == ["Output"])
        #expect(upstream.subscribers[0].customMirror.children.isEmpty)
        #expect(
            (subscriber.subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "Output")
    }

    /// As in Combine, values that come before the subscription count and, in the range, pass on (a
    /// completion before it is ignored); the late subscription then goes downstream and counting goes on.
    @Test func valuesBeforeTheSubscriptionCountAsInCombine() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.output(in: 1..<3).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(42))
        #expect(upstream.send(3) == .max(42))
        #expect(upstream.send(4) == .none, "after the range, with no subscription to cancel yet")
        #expect(subscriber.events == [.value(2), .value(3)])
        upstream.sendSubscription()
        #expect(subscriber.events == [.value(2), .value(3), .subscription("Output")])
        #expect(upstream.send(5) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.value(2), .value(3), .subscription("Output"), .finished])
        #expect(upstream.subscription.calls == [.cancel])
    }

    /// As in Combine, a cancel that comes before the upstream's subscription is forgotten (a downstream that
    /// follows the contract cannot send it: it gets its subscription only after the upstream's).
    @Test func aCancelBeforeTheSubscriptionIsForgottenAsInCombine() throws {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.output(in: 0..<3).subscribe(subscriber)
        try #require(upstream.subscriberAsSubscription).cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        #expect(subscriber.events == [.subscription("Output")])
        subscriber.request(.max(2))
        subscriber.cancel()
        #expect(upstream.subscription.calls == [.request(.max(2)), .cancel])
    }
}
