import Dispatch
import Testing

@testable import Ripple

@Suite("firstValue and lastValue")
struct AwaitedValueTests {
    @Test func firstValueRequestsOneAndCancelsAfterIt() async throws {
        let source = ScriptedSource<TestError>([7, 8, 9])
        #expect(try await source.publisher.firstValue == 7)
        #expect(source.publisher.calls == [.request(.max(1)), .cancel])
    }

    @Test func lastValueWaitsForTheEnd() async throws {
        let source = ScriptedSource<Never>([1, 2, 3])
        #expect(try await source.publisher.lastValue == 3)
        #expect(source.publisher.calls == [.request(.unlimited)])
    }

    @Test func finishingEmptyThrowsARippleError() async {
        await #expect(throws: PublisherValueError.finishedWithoutValue) {
            try await ScriptedSource<Never>([]).publisher.firstValue
        }
        await #expect(throws: PublisherValueError.finishedWithoutValue) {
            try await ScriptedSource<Never>([]).publisher.lastValue
        }
        #expect(
            PublisherValueError.finishedWithoutValue.description == "The publisher finished without emitting a value.")
    }

    @Test func theFailureIsThrown() async {
        await #expect(throws: TestError.oops) {
            try await ScriptedSource<TestError>([], then: .failure(.oops)).publisher.firstValue
        }
        await #expect(throws: TestError.other) {
            try await ScriptedSource<TestError>([1, 2], then: .failure(.other)).publisher.lastValue
        }
    }

    @Test func cancellingTheTaskCancelsTheSubscriptionAndThrowsCancellationError() async {
        for keepingLast in [false, true] {
            let requested = AsyncSignal()
            let upstream = TestPublisher<Int, Never>(onRequest: { _ in requested.signal() })
            let task = Task {
                keepingLast ? try await upstream.lastValue : try await upstream.firstValue
            }
            await requested.wait()
            if keepingLast { upstream.send(1) }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(upstream.calls == [.request(keepingLast ? .unlimited : .max(1)), .cancel])
            upstream.send(2)
            upstream.send(completion: .finished)
        }
    }

    @Test func anAlreadyCancelledTaskDoesNotSubscribe() async {
        let upstream = TestPublisher<Int, Never>()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await upstream.firstValue
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(upstream.subscriptions == 0)
    }

    @Test func aSecondSubscriptionIsCancelled() async throws {
        let twice = TwiceSubscribingPublisher()
        #expect(try await twice.firstValue == 1)
        #expect(twice.second.calls == [.cancel])
    }

    @Test func realTimeFirstTickFromADispatchQueue() async throws {
        let queue = DispatchQueue(label: "first-value")
        let start = DispatchQueue.SchedulerTimeType(.now())
        let tick = try await Publishers.every(.milliseconds(10), on: queue).firstValue
        #expect(start.distance(to: tick).magnitude >= 10_000_000)
    }
}

/// A misbehaving publisher that hands its subscriber two subscriptions, then a value.
private struct TwiceSubscribingPublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    let first = TestPublisher<Int, Never>()
    let second = TestPublisher<Int, Never>()

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        first.receive(subscriber: subscriber)
        second.receive(subscriber: subscriber)
        first.send(1)
    }
}
