import Dispatch
import RippleTestKit
import Testing

/// The recording subscriber: its exact histories, its demand, its checks and its waits.
@Suite struct TestSubscriberTests {
    enum Failure: Error, Equatable { case broken }

    @Test func theHistoryInterleavesRequestsAndCancelWithWhatArrived() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        [1, 2, 3].publisher.subscribe(subscriber)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(
            subscriber.history == [
                .subscription("[1, 2, 3]"), .request(.max(2)), .value(1), .value(2), .request(.max(1)), .value(3),
                .finished, .cancel,
            ])
        #expect(subscriber.events == [.subscription("[1, 2, 3]"), .value(1), .value(2), .value(3), .finished])
        #expect(subscriber.requested == .max(3))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0 && subscriber.orderViolations == 0)
    }

    @Test func demandReturnedFromReceiveIsRecordedAsARequest() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        [7, 8].publisher.subscribe(subscriber)
        #expect(
            subscriber.history == [
                .subscription("[7, 8]"), .request(.max(1)), .value(7), .request(.max(1)), .value(8), .request(.max(1)),
                .finished,
            ])
    }

    @Test func withoutInitialDemandNothingIsRequestedUntilTheTestAsks() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        [1, 2].publisher.subscribe(subscriber)
        #expect(subscriber.history == [.subscription("[1, 2]")])
        subscriber.request(.unlimited)
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.isCompleted)
    }

    @Test func aRequestForNothingIsPassedOnAsItIs() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.subscribe(subscriber)
        subscriber.request(.none)
        #expect(upstream.calls == [.request(.max(1)), .request(.none)])
        #expect(subscriber.history == [.subscription("TestSubscription"), .request(.max(1)), .request(.none)])
    }

    @Test func aFailureIsRecordedAsTheCompletion() {
        let subscriber = TestSubscriber<Int, Failure>()
        Fail<Int, Failure>(error: .broken).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .failure(.broken)])
    }

    @Test func valuesWithoutDemandAndSignalsAfterTheCompletionAreCounted() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        upstream.subscribe(subscriber)
        upstream.send(1)
        upstream.send(2)  // no demand left
        upstream.send(completion: .finished)
        upstream.send(3)  // after the completion (and without demand)
        #expect(subscriber.demandViolations == 2)
        #expect(subscriber.orderViolations == 1)
    }

    @Test func waitsForValuesSentFromAnotherThread() async throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.subscribe(subscriber)
        DispatchQueue.global().async {
            for value in 1...5 { subject.send(value) }
            subject.send(completion: .finished)
        }
        #expect(try await subscriber.waitForValues(3).count >= 3)
        #expect(try await subscriber.waitForCompletion() == .finished)
        #expect(subscriber.values == [1, 2, 3, 4, 5])
    }

    @Test func aWaitThatIsNotSatisfiedThrowsWithTheHistory() async {
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        PassthroughSubject<Int, Never>().subscribe(subscriber)
        await #expect(throws: TestSubscriberTimeout.self) {
            try await subscriber.waitForCompletion(timeout: .milliseconds(20))
        }
        do {
            try await subscriber.waitForValues(1, timeout: .milliseconds(20))
        } catch let timeout as TestSubscriberTimeout {
            #expect(timeout.valueCount == 0 && timeout.completion == nil && timeout.historyCount == 2)
            #expect(timeout.recentHistory == ["subscription(PassthroughSubject)", "request(unlimited)"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func aTimeoutAfterALongHistoryShowsCountsAndTheLastEntries() async {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        for value in 1...100_000 { subject.send(value) }
        do {
            try await subscriber.waitForValues(100_001, timeout: .milliseconds(20))
            Issue.record("the wait did not time out")
        } catch let timeout as TestSubscriberTimeout {
            #expect(timeout.valueCount == 100_000 && timeout.historyCount == 100_002)
            #expect(timeout.recentHistory == (99_991...100_000).map { "value(\($0))" })
            #expect(timeout.description.contains("100000 values, not completed; the last 10 of 100002 entries"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func waitingForEachOfManyValuesIsLinear() async throws {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        let total = 100_000
        let waiting = Task { try await subscriber.waitForValues(total, timeout: .seconds(60)) }
        DispatchQueue.global().async {
            for value in 1...total { subject.send(value) }
        }
        #expect(try await waiting.value == Array(1...total))
    }

    @Test func aCancelledWaitThrowsCancellationError() async {
        let subscriber = TestSubscriber<Int, Never>()
        let waiting = Task { try await subscriber.waitForCompletion() }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }
}
