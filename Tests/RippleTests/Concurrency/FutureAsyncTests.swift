import Testing

@testable import Ripple

@Suite("Future from an async operation")
struct FutureAsyncTests {
    @Test func everySubscriberReceivesTheValueThenFinished() async {
        let done = AsyncSignal()
        let runs = TimingTestList<Int>()
        let future = Future<Int, Never> {
            runs.append(1)
            return 42
        }
        let first = TestSubscriber<Int, Never>(onCompletion: { _ in done.signal() })
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>(onCompletion: { _ in done.signal() })
        defer { second.cancel() }
        future.subscribe(first)
        future.subscribe(second)
        await done.wait()
        await done.wait()
        for subscriber in [first, second] {
            #expect(subscriber.events == [.subscription("Future"), .value(42), .finished])
        }
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        future.subscribe(late)
        #expect(
            late.events == [.subscription("Future"), .value(42), .finished],
            "a late subscriber gets the stored result at once")
        #expect(runs.count == 1, "the operation runs once")
    }

    @Test func theValueWaitsForDemand() async {
        let release = AsyncSignal()
        let done = AsyncSignal()
        let future = Future<String, Never> {
            await release.wait()
            return "ready"
        }
        let waiting = TestSubscriber<String, Never>(initialDemand: nil)
        defer { waiting.cancel() }
        let witness = TestSubscriber<String, Never>(onCompletion: { _ in done.signal() })
        defer { witness.cancel() }
        future.subscribe(waiting)
        future.subscribe(witness)
        release.signal()
        await done.wait()
        #expect(waiting.events == [.subscription("Future")])
        waiting.request(.max(1))
        #expect(waiting.events == [.subscription("Future"), .value("ready"), .finished])
        waiting.request(.max(1))
        #expect(waiting.events.count == 3)
    }

    @Test func aThrownErrorFailsEverySubscriberWithoutWaitingForDemand() async {
        let done = AsyncSignal()
        let future = Future<Int, TestError> { () async throws(TestError) -> Int in
            throw .oops
        }
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onCompletion: { _ in done.signal() })
        defer { subscriber.cancel() }
        future.subscribe(subscriber)
        await done.wait()
        #expect(subscriber.events == [.subscription("Future"), .failure(.oops)])
    }

    @Test func theFailureTypeIsInferredFromTheClosure() async throws {
        let throwing = Future { () async throws -> Int in 7 }
        let erased: Future<Int, any Error> = throwing
        #expect(try await erased.firstValue == 7)
        let nonThrowing = Future { 8 }
        let never: Future<Int, Never> = nonThrowing
        #expect(try await never.firstValue == 8)
    }

    @Test func aCancelledSubscriberReceivesNothing() async {
        let release = AsyncSignal()
        let done = AsyncSignal()
        let future = Future<Int, Never> {
            await release.wait()
            return 1
        }
        let cancelled = TestSubscriber<Int, Never>()
        defer { cancelled.cancel() }
        let witness = TestSubscriber<Int, Never>(onCompletion: { _ in done.signal() })
        defer { witness.cancel() }
        future.subscribe(cancelled)
        future.subscribe(witness)
        let subscription = cancelled.subscription
        cancelled.cancel()
        subscription?.cancel()
        release.signal()
        await done.wait()
        #expect(cancelled.events == [.subscription("Future")])
        #expect(
            subscription.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
                == "Future")

        let cancelledAtOnce = AnySubscriber<Int, Never>(
            receiveSubscription: { $0.cancel() },
            receiveValue: { _ in
                Issue.record("no value after cancel")
                return .none
            })
        future.subscribe(cancelledAtOnce)
    }
}
