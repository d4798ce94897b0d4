import Testing

@testable import Ripple

/// Where the sequencing operators trap on a broken contract, as Combine does: each case runs in a child
/// process, which must crash; the cases next to them pin what does not trap.
@Suite("Sequencing: traps on a broken contract")
struct SequencingMisuseTests {
    // MARK: prefix(while:)

    @Test func prefixWhileTrapsOnSignalsBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.prefix { _ in true }.subscribe(TestSubscriber<Int, Never>())
            _ = upstream.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryPrefix { _ in true }.mapError { _ in TestError.oops }.subscribe(
                TestSubscriber<Int, TestError>())
            _ = upstream.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.prefix { _ in true }.subscribe(TestSubscriber<Int, Never>())
            upstream.send(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryPrefix { _ in true }.mapError { _ in TestError.oops }.subscribe(
                TestSubscriber<Int, TestError>())
            upstream.send(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.prefix { _ in true }.subscribe(TestSubscriber<Int, Never>())
            upstream.subscriberAsSubscription?.request(.max(1))
        }
    }

    @Test func tryPrefixWhileTrapsOnARequestBeforeTheSubscriptionOrOfNothing() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryPrefix { _ in true }.mapError { _ in TestError.oops }.subscribe(
                TestSubscriber<Int, TestError>())
            upstream.subscriberAsSubscription?.request(.max(1))
        }
        expectTrap(result, saying: TrapMessage.requestBeforeSubscription)
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            TestPublisher<Int, Never>().tryPrefix { _ in true }.mapError { _ in TestError.oops }.subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func prefixWhileCancelledBeforeTheSubscriptionCancelsItWhenItArrives() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.prefix { _ in true }.subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [.cancel])
        #expect(subscriber.events == [])
    }

    // MARK: catch / tryCatch

    @Test func catchTrapsOnAValueBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, TestError>()
            upstream.catch { _ in Just(-1) }.subscribe(TestSubscriber<Int, Never>())
            _ = upstream.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, TestError>()
            upstream.tryCatch { _ in Just(-1) }.mapError { _ in TestError.oops }.subscribe(
                TestSubscriber<Int, TestError>())
            _ = upstream.send(1)
        }
    }

    @Test func catchTrapsOnAValueNobodyAskedFor() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.catch { _ in Just(-1) }.subscribe(TestSubscriber<Int, Never>(initialDemand: nil))
            _ = upstream.send(42)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.tryCatch { _ in Just(-1) }.mapError { _ in TestError.oops }
                .subscribe(TestSubscriber<Int, TestError>(initialDemand: .max(1)))
            _ = upstream.send(1)
            _ = upstream.send(2)
        }
    }

    @Test func catchTrapsWhenTheUpstreamFailsTwice() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            let replacement = TestPublisher<Int, TestError>()
            upstream.catch { _ in replacement }.subscribe(TestSubscriber<Int, TestError>())
            upstream.send(completion: .failure(.oops))
            upstream.send(completion: .failure(.oops))
        }
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            let replacement = LatePublisher<Int, TestError>()
            upstream.tryCatch { _ in replacement }.mapError { _ in TestError.oops }.subscribe(
                TestSubscriber<Int, TestError>())
            upstream.send(completion: .failure(.oops))
            upstream.send(completion: .failure(.oops))
        }
    }

    @Test func catchTrapsWhenTheHandlerMakesTheUpstreamFailAgain() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.catch { _ in
                upstream.send(completion: .failure(.other))
                return Just(13)
            }
            .subscribe(TestSubscriber<Int, Never>())
            upstream.send(completion: .failure(.oops))
        }
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.tryCatch { _ in
                upstream.send(completion: .failure(.other))
                return Just(13)
            }
            .mapError { _ in TestError.oops }
            .subscribe(TestSubscriber<Int, TestError>())
            upstream.send(completion: .failure(.oops))
        }
    }

    @Test func catchTrapsOnAFailureBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, TestError>()
            upstream.catch { _ in Just(-1) }.subscribe(TestSubscriber<Int, Never>())
            upstream.send(completion: .failure(.oops))
        }
    }

    @Test func tryCatchTrapsOnAFailureBeforeTheSubscriptionOrADemandOfNothing() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = LatePublisher<Int, TestError>()
            upstream.tryCatch { _ in Just(-1) }.mapError { _ in TestError.oops }.subscribe(
                TestSubscriber<Int, TestError>())
            upstream.send(completion: .failure(.oops))
        }
        expectTrap(result, saying: TrapMessage.unexpectedCompletion)
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
            TestPublisher<Int, TestError>().tryCatch { _ in Just(0) }.mapError { _ in TestError.oops }
                .subscribe(subscriber)
            subscriber.subscription?.request(.none)
        }
        expectTrap(result, saying: TrapMessage.zeroDemand)
    }

    @Test func catchIgnoresAFinishBeforeTheSubscriptionAndSignalsAfterCancel() {
        let upstream = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.catch { _ in Just(-1) }.subscribe(subscriber)
        upstream.send(completion: .finished)
        upstream.sendSubscription()
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .failure(.oops))
        #expect(subscriber.events == [.subscription("Catch")])
        #expect(upstream.subscription.calls == [.request(.unlimited), .cancel])
    }

    // MARK: retry

    @Test func retryTrapsOnAValueNobodyAskedFor() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.retry(2).subscribe(TestSubscriber<Int, TestError>(initialDemand: nil))
            _ = upstream.send(-1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, TestError>()
            upstream.retry(2).subscribe(TestSubscriber<Int, TestError>())
            _ = upstream.send(1)
        }
    }

    @Test func retryPassesOnACompletionBeforeTheSubscriptionAsCombineDoes() {
        let upstream = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.retry(2).subscribe(subscriber)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.finished])
    }

    @Test func retryKeepsARequestBeforeTheSubscriptionAsCombineDoes() {
        let upstream = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.retry(2).subscribe(subscriber)
        upstream.subscriberAsSubscription?.request(.max(2))
        upstream.sendSubscription()
        #expect(subscriber.events == [.subscription("Retry")])
        #expect(upstream.subscription.calls == [.request(.max(2))])
    }

    @Test func retryIgnoresValuesAfterCancel() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.retry(2).subscribe(subscriber)
        subscriber.cancel()
        #expect(upstream.send(1) == .none)
        #expect(subscriber.events == [.subscription("Retry")])
    }

    // MARK: drop(untilOutputFrom:)

    @Test func dropUntilOutputTrapsOnAValueNobodyAskedFor() async {
        // Before the subscription (the other publisher, `Empty`, has already ended the stream).
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.drop(untilOutputFrom: Empty<Int, Never>())
                .subscribe(TestSubscriber<Int, Never>(initialDemand: nil))
            _ = upstream.send(42)
        }
        // After cancel.
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, Never>()
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            upstream.drop(untilOutputFrom: PassthroughSubject<Int, Never>()).subscribe(subscriber)
            subscriber.cancel()
            _ = upstream.send(0)
        }
    }

    @Test func dropUntilOutputUsesUpDemandOnValuesItIgnores() {
        let upstream = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        upstream.drop(untilOutputFrom: PassthroughSubject<Int, Never>()).subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        subscriber.cancel()
        #expect(upstream.send(2) == .none)
        #expect(subscriber.events == [.subscription("DropUntilOutput")])
        #expect(upstream.calls == [.request(.max(2)), .cancel])
    }

    // MARK: buffer

    @Test func bufferTrapsOnAValueSentFromItsCustomError() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.buffer(
                size: 0, prefetch: .keepFull,
                whenFull: .customError {
                    _ = upstream.send(1000)
                    return TestError.oops
                }
            )
            .subscribe(TestSubscriber<Int, TestError>(initialDemand: .max(2)))
            _ = upstream.send(0)
        }
    }

    @Test func bufferFailsWithItsCustomErrorWhenFull() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.buffer(size: 1, prefetch: .keepFull, whenFull: .customError { TestError.other })
            .subscribe(subscriber)
        #expect(upstream.send(1) == .none)
        #expect(upstream.send(2) == .none)
        subscriber.request(.max(1))
        #expect(subscriber.events == [.subscription("Buffer"), .value(1), .completion(.failure(.other))])
        // As in Combine, the refill for the value passed on goes to the upstream cancelled on overflow.
        #expect(upstream.calls == [.request(.max(1)), .cancel, .request(.max(1))])
    }
}
