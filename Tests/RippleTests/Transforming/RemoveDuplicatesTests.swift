import Testing

@testable import Ripple

@Suite("RemoveDuplicates, TryRemoveDuplicates")
struct RemoveDuplicatesTests {
    @Test func removesEqualNeighbours() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { _ in .max(4) })
        defer { subscriber.cancel() }
        upstream.removeDuplicates().subscribe(subscriber)
        let answers = [1, 2, 2, 50, 30, 30, 30, 2].map { upstream.send($0) }
        #expect(answers == [.max(4), .max(4), .max(1), .max(4), .max(4), .max(1), .max(1), .max(4)])
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.values == [1, 2, 50, 30, 2])
        #expect(subscriber.events.first == .subscription("RemoveDuplicates"))
        #expect(subscriber.completion == .failure(.oops))
        #expect(upstream.calls == [.request(.max(2))])
    }

    @Test func comparesWithThePreviousValueEvenIfDropped() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        var pairs: [[Int]] = []
        upstream.removeDuplicates { previous, next in
            pairs.append([previous, next])
            return previous >= next
        }.subscribe(subscriber)
        for value in [1, 2, 2, 50, 30, 10, 51] { upstream.send(value) }
        upstream.send(completion: .finished)
        #expect(subscriber.values == [1, 2, 50, 51])
        #expect(pairs == [[1, 2], [2, 2], [2, 50], [50, 30], [30, 10], [10, 51]])
        #expect(subscriber.completion == .finished)
    }

    @Test func oneAtATimeDemandAndCancel() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        upstream.removeDuplicates().subscribe(subscriber)
        for value in [1, 1, 2, 2, 3] { upstream.send(value) }
        subscriber.cancel()
        #expect(upstream.send(4) == .none)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("RemoveDuplicates"), .value(1), .value(2), .value(3)])
        #expect(subscriber.demandViolations == 0)
        #expect(upstream.calls == [.request(.max(1)), .cancel])
    }

    @Test func tryRemoveDuplicatesFailsOnThrow() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.tryRemoveDuplicates { previous, next in
            if next == 9 { throw TestError.oops }
            return previous == next
        }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(9) == .none)
        #expect(upstream.send(3) == .none)
        #expect(subscriber.events == [.subscription("TryRemoveDuplicates"), .value(1), .failure(.oops)])
        #expect(upstream.calls == [.request(.unlimited), .cancel])
    }

    @Test func tryRemoveDuplicatesForwardsCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.tryRemoveDuplicates(by: ==).mapError(transformingTestError).subscribe(subscriber)
        upstream.send(2)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("TryRemoveDuplicates"), .value(2), .failure(.oops)])
    }

    @Test func reflectsTheLastValueAsCombineDoes() {
        let upstream = TransformingNamingPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.subscribers[0].receive(subscription: TransformingRecordingSubscription())
        func children() -> [String] {
            upstream.subscribers[0].customMirror.children.map { "\($0.label ?? "")=\($0.value)" }
        }
        #expect(children().count == 2)
        #expect(children().last == "last=nil")
        _ = upstream.subscribers[0].receive(7)
        #expect(children().last == "last=Optional(7)")
        #expect(Subscriptions.empty is any CustomReflectable)
        #expect((Subscriptions.empty as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(
            (Subscriptions.empty as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "Empty")
    }
}
