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

    @Test func filterLikeOperatorsCancelASubscriptionThatArrivesAfterACancel() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        upstream.removeDuplicates().subscribe(subscriber)
        upstream.subscriberAsSubscription?.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [.cancel])
        #expect(subscriber.events == [])
    }

    @Test func tryMapPassesAValueBeforeTheSubscriptionAndIgnoresTheRest() {
        let upstream = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onValue: { _ in .max(42) })
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

extension TestSubscriber where Failure == TestError {
    /// This subscriber behind a `mapError` to ``TestError``, for the `try` operators' `any Error`.
    func erasingErrors() -> AnySubscriber<Input, any Error> {
        AnySubscriber(
            receiveSubscription: { self.receive(subscription: $0) },
            receiveValue: { self.receive($0) },
            receiveCompletion: { self.receive(completion: $0.mapFailure(transformingTestError)) })
    }
}
