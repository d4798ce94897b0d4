import Testing

@testable import Ripple

/// What the step operators do with signals that break the contract, as Combine does: the filter-like ones
/// trap on a value, a completion or a request before the subscription; `tryMap` and `tryScan` do not.
@Suite("Transforming: signals out of order")
struct TransformingMisuseTests {
    @Test func filterLikeOperatorsTrapOnAValueBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryFilter { _ in true }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryCompactMap { $0 }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.removeDuplicates().subscribe(TestSubscriber<Int, Never>())
            upstream.send(1)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryRemoveDuplicates { $0 == $1 }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.send(1)
        }
    }

    @Test func filterLikeOperatorsTrapOnACompletionBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryFilter { _ in true }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.send(completion: .finished)
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.removeDuplicates().subscribe(TestSubscriber<Int, Never>())
            upstream.send(completion: .finished)
        }
    }

    @Test func filterLikeOperatorsTrapOnARequestBeforeTheSubscription() async {
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryCompactMap { $0 }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.subscriberAsSubscription?.request(.max(1))
        }
        await #expect(processExitsWith: .failure) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryRemoveDuplicates { $0 == $1 }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.subscriberAsSubscription?.request(.max(1))
        }
    }

    @Test func tryCompactMapAndTryRemoveDuplicatesTrapOnACompletionBeforeTheSubscription() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryCompactMap { $0 }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.send(completion: .finished)
        }
        expectTrap(result, saying: TrapMessage.unexpectedCompletion)
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryRemoveDuplicates { $0 == $1 }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.send(completion: .finished)
        }
        expectTrap(result, saying: TrapMessage.unexpectedCompletion)
    }

    @Test func tryFilterAndRemoveDuplicatesTrapOnARequestBeforeTheSubscription() async {
        var result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = LatePublisher<Int, Never>()
            upstream.tryFilter { _ in true }.subscribe(TestSubscriber<Int, TestError>().erasingErrors())
            upstream.subscriberAsSubscription?.request(.max(1))
        }
        expectTrap(result, saying: TrapMessage.requestBeforeSubscription)
        result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let upstream = LatePublisher<Int, Never>()
            upstream.removeDuplicates().subscribe(TestSubscriber<Int, Never>())
            upstream.subscriberAsSubscription?.request(.max(1))
        }
        expectTrap(result, saying: TrapMessage.requestBeforeSubscription)
    }

    @Test func replaceErrorTrapsOnAValueNobodyAskedFor() async {
        await #expect(processExitsWith: .failure) {
            let upstream = TestPublisher<Int, TestError>()
            upstream.replaceError(with: 0).subscribe(TestSubscriber<Int, Never>(initialDemand: nil))
            _ = upstream.send(1)
        }
    }

    @Test func replaceErrorCountsTheDemandTheDownstreamReturns() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
        defer { subscriber.cancel() }
        upstream.replaceError(with: 0).subscribe(subscriber)
        #expect(upstream.send(1) == .max(1))
        #expect(upstream.send(2) == .max(1))
        upstream.send(completion: .failure(.oops))
        #expect(
            subscriber.events == [
                .subscription("ReplaceError"), .value(1), .value(2), .value(0), .completion(.finished),
            ])
    }

    @Test func filterLikeOperatorsCancelASubscriptionThatArrivesAfterACancel() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [.cancel])
        #expect(subscriber.events == [])
    }

    @Test func tryMapPassesAValueBeforeTheSubscriptionAndIgnoresTheRest() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.tryMap { $0 * 2 }.mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.send(1) == .max(42))
        upstream.send(completion: .finished)
        upstream.subscriberAsSubscription?.request(.max(1))
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(subscriber.events == [.value(2), .subscription("TryMap")])
        #expect(upstream.subscription.calls == [])
        subscriber.cancel()
        #expect(upstream.subscription.calls == [.cancel])
    }

    @Test func tryScanPassesAValueBeforeTheSubscriptionAndIgnoresTheRest() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.tryScan(10, +).mapError(transformingTestError).subscribe(subscriber)
        #expect(upstream.send(1) == .max(42))
        upstream.send(completion: .finished)
        upstream.subscriberAsSubscription?.request(.max(1))
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(subscriber.events == [.value(11), .subscription("TryScan")])
        #expect(upstream.subscription.calls == [])
        upstream.send(completion: .finished)
        upstream.send(completion: .finished)
        // As in Combine, TryScan forwards every completion while subscribed.
        #expect(subscriber.events == [.value(11), .subscription("TryScan"), .finished, .finished])
        subscriber.cancel()
        #expect(upstream.subscription.calls == [.cancel])
    }
}

/// An encoder that describes its value, and fails on negative numbers.
private struct DescribingTestEncoder: TopLevelEncoder {
    func encode<T: Encodable>(_ value: T) throws -> String {
        if let number = value as? Int, number < 0 { throw TestError.oops }
        return "\(value)"
    }
}

extension TransformingMisuseTests {
    @Test func encodePassesSignalsBeforeTheSubscriptionAndNothingAfterTheEnd() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: nil, onValue: { _ in .max(3) })
        defer { subscriber.cancel() }
        upstream.encode(encoder: DescribingTestEncoder()).mapError(transformingTestError).subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        #expect(upstream.send(1) == .max(3))
        upstream.send(completion: .finished)
        #expect(upstream.send(2) == .none)
        upstream.sendSubscription()
        #expect(subscriber.events == [.value("1"), .finished])
        #expect(upstream.subscription.calls == [.cancel])
    }

    @Test func encodeFailsBeforeTheSubscriptionAndReflectsItsState() throws {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<String, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.encode(encoder: DescribingTestEncoder()).mapError(transformingTestError).subscribe(subscriber)
        let inner = try #require(upstream.erased.flatMap { $0 as? any CustomReflectable })
        #expect(inner.customMirror.children.map(\.label) == ["downstream", "finished", "upstreamSubscription"])
        #expect(inner.customMirror.children.map { "\($0.value)" }.dropFirst() == ["false", "nil"])
        #expect(upstream.send(-1) == .none)
        #expect(subscriber.events == [.failure(.oops)])
        #expect(inner.customMirror.children.map { "\($0.value)" }.dropFirst() == ["true", "nil"])
        upstream.subscriberAsSubscription?.request(.max(1))
        #expect(upstream.subscription.calls == [])
    }
}

extension TestSubscriber where Failure == TestError {
    /// This subscriber behind a `mapError` to ``TestError``, for the `try` operators' `any Error`.
    func erasingErrors() -> AnySubscriber<Input, any Error> {
        AnySubscriber(
            receiveSubscription: { self.receive(subscription: $0) },
            receiveValue: { self.receive($0) },
            receiveCompletion: { self.receive(completion: $0.mapFailure(transformingTestError)) })
    }
}
