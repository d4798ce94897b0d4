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
}
