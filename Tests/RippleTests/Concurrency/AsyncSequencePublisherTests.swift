import Testing

@testable import Ripple

@Suite("AsyncSequence.publisher")
struct AsyncSequencePublisherTests {

    @Test func aDemandOfNothingTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            AsyncStream<Int> { $0.finish() }.publisher.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func emitsTheElementsThenFinishes() async {
        let done = AsyncSignal()
        let stream = AsyncStream<Int> { continuation in
            for value in 1...3 { continuation.yield(value) }
            continuation.finish()
        }
        let subscriber = TestSubscriber<Int, Never>(onCompletion: { _ in done.signal() })
        defer { subscriber.cancel() }
        stream.publisher.subscribe(subscriber)
        await done.wait()
        #expect(
            subscriber.events == [.subscription("AsyncSequencePublisher"), .value(1), .value(2), .value(3), .finished])
    }

    @Test func asksTheSequenceOnlyForWhatIsDemanded() async {
        let arrived = AsyncSignal()
        let sequence = CountingAsyncSequence(values: Array(1...10), failure: nil)
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(2),
            onValue: { _ in
                arrived.signal()
                return .none
            })
        defer { subscriber.cancel() }
        sequence.publisher.subscribe(subscriber)
        await arrived.wait()
        await arrived.wait()
        #expect(subscriber.values == [1, 2])
        #expect(sequence.calls.count == 2, "no element is pulled without demand")
        subscriber.request(.max(1))
        await arrived.wait()
        #expect(subscriber.values == [1, 2, 3])
        #expect(sequence.calls.count == 3)
        #expect(subscriber.completion == nil)
        subscriber.cancel()
    }

    @Test func oneAtATimeWithReturnedDemand() async {
        let done = AsyncSignal()
        let sequence = CountingAsyncSequence(values: Array(1...200), failure: nil)
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(1), onValue: { _ in .max(1) },
            onCompletion: { _ in
                done.signal()
            })
        defer { subscriber.cancel() }
        sequence.publisher.subscribe(subscriber)
        await done.wait()
        #expect(subscriber.values == Array(1...200))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        #expect(sequence.calls.count == 201)
    }

    @Test func theSequencesErrorFailsThePublisher() async {
        let done = AsyncSignal()
        let sequence = CountingAsyncSequence(values: [1], failure: .oops)
        let subscriber = TestSubscriber<Int, TestError>(onCompletion: { _ in done.signal() })
        defer { subscriber.cancel() }
        sequence.publisher.subscribe(subscriber)
        await done.wait()
        #expect(subscriber.events == [.subscription("AsyncSequencePublisher"), .value(1), .failure(.oops)])
        subscriber.request(.max(1))
        subscriber.cancel()
    }

    @Test func cancellingCancelsTheIteratingTask() async {
        let terminated = AsyncSignal()
        let first = AsyncSignal()
        let termination = TimingTestList<String>()
        let stream = AsyncStream<Int> { continuation in
            continuation.onTermination = { reason in
                termination.append("\(reason)")
                terminated.signal()
            }
            continuation.yield(1)
        }
        let subscriber = TestSubscriber<Int, Never>(onValue: { _ in
            first.signal()
            return .none
        })
        defer { subscriber.cancel() }
        stream.publisher.subscribe(subscriber)
        await first.wait()
        subscriber.cancel()
        await terminated.wait()
        #expect(termination.all == ["cancelled"])
        #expect(subscriber.events == [.subscription("AsyncSequencePublisher"), .value(1)])
        subscriber.request(.max(1))
        subscriber.cancel()
    }

    @Test func cancellingBeforeAnyRequestNeverStartsATask() {
        let sequence = CountingAsyncSequence(values: [1], failure: nil)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        sequence.publisher.subscribe(subscriber)
        let subscription = subscriber.subscription
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(sequence.calls.count == 0)
        #expect(subscriber.events == [.subscription("AsyncSequencePublisher")])
        #expect(subscription.flatMap { ($0 as? any CustomReflectable)?.customMirror.children.isEmpty } == true)
        #expect(
            subscription.flatMap { ($0 as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String }
                == "AsyncSequencePublisher")
    }
}
