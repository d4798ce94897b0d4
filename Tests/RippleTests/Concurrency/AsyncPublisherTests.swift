import Dispatch
import Testing

@testable import Ripple

@Suite("publisher.values")
struct AsyncPublisherTests {
    @Test func iteratesRequestingOneValueAtATime() async {
        let source = ScriptedSource<Never>([1, 2, 3])
        var received: [Int] = []
        for await value in source.publisher.values {
            received.append(value)
        }
        #expect(received == [1, 2, 3])
        #expect(
            source.publisher.calls == [.request(.max(1)), .request(.max(1)), .request(.max(1))],
            "the last value comes with the completion")
    }

    @Test func valuesAnsweredOnAnotherThreadBeforeTheRequestReturnsArriveInOrder() async {
        // Each value is sent on another thread while `request` is still running: the iterator must not hand it
        // to a task that has not suspended yet through its continuation, a resumption ThreadSanitizer cannot
        // follow (the runtime's already-resumed path of `swift_continuation_await` tells it nothing).
        let source = ScriptedSource<Never>(Array(0..<500), answeringOn: DispatchQueue(label: "answers"))
        var received: [Int] = []
        for await value in source.publisher.values {
            received.append(value)
        }
        #expect(received == Array(0..<500))
        #expect(source.publisher.calls == Array(repeating: .request(.max(1)), count: 500))
    }

    @Test func forTryAwaitThrowsThePublishersError() async {
        let source = ScriptedSource<TestError>([1, 2], then: .failure(.oops))
        var received: [Int] = []
        await #expect(throws: TestError.oops) {
            for try await value in source.publisher.values {
                received.append(value)
            }
        }
        #expect(received == [1, 2])
    }

    @Test func aFailureBeforeTheFirstNextIsThrownOnceThenTheSequenceEnds() async throws {
        let upstream = TestPublisher<Int, TestError>()
        var iterator = upstream.values.makeAsyncIterator()
        upstream.send(completion: .failure(.other))
        await #expect(throws: TestError.other) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(upstream.calls.isEmpty)
    }

    @Test func aThrowingSequenceOverAPublisherThatFinishesEndsNormally() async throws {
        let source = ScriptedSource<TestError>([5])
        var received: [Int] = []
        for try await value in source.publisher.values { received.append(value) }
        #expect(received == [5])
    }

    @Test func valuesSentWithoutDemandAreKeptForTheNextCalls() async {
        let upstream = TestPublisher<Int, Never>()
        var iterator = upstream.values.makeAsyncIterator()
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
        #expect(upstream.calls.isEmpty)
    }

    @Test func throwingValuesSentWithoutDemandAreKeptForTheNextCalls() async throws {
        let upstream = TestPublisher<Int, TestError>()
        var iterator = upstream.values.makeAsyncIterator()
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .failure(.oops))
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 2)
        await #expect(throws: TestError.oops) { try await iterator.next() }
        #expect(try await iterator.next() == nil)
        #expect(upstream.calls.isEmpty)
    }

    @Test func aValueBeforeTheSubscriptionEndsTheWaitingCallsWithNilAsInCombine() async {
        // The publisher keeps the iterator's subscriber and hands it no subscription until the test does.
        final class Withholding: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            var subscriber: AsyncIteratorSubscriber<Int, Never>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber as? AsyncIteratorSubscriber<Int, Never>
            }
        }
        let publisher = Withholding()
        let iterator = publisher.values.makeAsyncIterator()
        guard let subscriber = publisher.subscriber else {
            Issue.record("values subscribed no AsyncIteratorSubscriber")
            return
        }
        nonisolated(unsafe) var first = iterator
        nonisolated(unsafe) var second = iterator
        async let one = first.next()
        async let two = second.next()
        while subscriber.waitingTasks < 2 { await Task.yield() }
        #expect(subscriber.receive(42) == .none)
        let results = await [one, two]
        #expect(results == [nil, nil])
        // Nothing else changed: the subscription that comes later is asked for what the two calls requested.
        let recorder = TestPublisher<Int, Never>()
        subscriber.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: recorder))
        #expect(recorder.calls == [.request(.max(2))])
    }

    @Test func theSubscriberIsCancellableAndCancellingItEndsTheIterationAsInCombine() async {
        final class Capturing: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            let upstream = TestPublisher<Int, Never>()
            var subscriber: (any Subscriber)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                self.subscriber = subscriber
                upstream.subscribe(subscriber)
            }
        }
        let publisher = Capturing()
        var iterator = publisher.values.makeAsyncIterator()
        let cancellable = publisher.subscriber as? any Cancellable
        #expect(cancellable != nil)
        cancellable?.cancel()
        #expect(await iterator.next() == nil)
        #expect(publisher.upstream.calls == [.cancel])
    }

    @Test func cancellingTheTaskCancelsTheSubscription() async {
        let requested = AsyncSignal()
        let upstream = TestPublisher<Int, Never>(onRequest: { _ in requested.signal() })
        let task = Task {
            var count = 0
            for await _ in upstream.values { count += 1 }
            return count
        }
        await requested.wait()
        task.cancel()
        #expect(await task.value == 0)
        #expect(upstream.calls == [.request(.max(1)), .cancel])
    }

    @Test func cancellingAThrowingIterationCancelsTheSubscription() async throws {
        let requested = AsyncSignal()
        let upstream = TestPublisher<Int, TestError>(onRequest: { _ in requested.signal() })
        let task = Task {
            var count = 0
            for try await _ in upstream.values { count += 1 }
            return count
        }
        await requested.wait()
        task.cancel()
        #expect(try await task.value == 0)
        #expect(upstream.calls == [.request(.max(1)), .cancel])
    }

    @Test func leavingTheLoopCancelsTheSubscription() async {
        let source = ScriptedSource<Never>(Array(1...100), then: nil)
        var received: [Int] = []
        for await value in source.publisher.values {
            received.append(value)
            if value == 2 { break }
        }
        #expect(received == [1, 2])
        #expect(source.publisher.calls == [.request(.max(1)), .request(.max(1)), .cancel])
    }

    @Test func iteratingOnAnActorStaysOnIt() async {
        actor Collector {
            var values: [Int] = []
            func collect(_ publisher: TestPublisher<Int, Never>) async {
                for await value in publisher.values { values.append(value) }
            }
        }
        let source = ScriptedSource<Never>([4, 5])
        let collector = Collector()
        await collector.collect(source.publisher)
        #expect(await collector.values == [4, 5])
    }

    @Test func realTimeTicksFromADispatchQueue() async {
        let queue = DispatchQueue(label: "values")
        var ticks: [DispatchQueue.SchedulerTimeType] = []
        for await time in Publishers.every(.milliseconds(5), on: queue).values {
            ticks.append(time)
            if ticks.count == 3 { break }
        }
        #expect(ticks.count == 3)
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $0 < $1 })
    }
}
