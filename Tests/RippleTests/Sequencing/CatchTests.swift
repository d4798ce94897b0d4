import Dispatch
import Testing

@testable import Ripple

@Suite("catch, tryCatch (Publishers.Catch, Publishers.TryCatch)")
struct CatchTests {
    @Test func replacesAFailedUpstreamWithTheDemandLeft() throws {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let errors = SequencingCounter()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(12), onValue: { _ in .max(3) })
        defer { subscriber.cancel() }
        upstream.catch { [unowned replacement] _ in
            errors.increment()
            return replacement
        }.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Catch")])
        try #require(subscriber.subscription).request(.max(5))
        #expect(upstream.calls == [.request(.max(12)), .request(.max(5))])
        for value in 1...8 {
            #expect(upstream.send(value) == .max(3))
        }
        upstream.send(completion: .failure(.oops))
        #expect(errors.count == 1)
        #expect(replacement.calls == [.request(.max(33))])
        #expect(replacement.send(100) == .max(3))
        replacement.send(completion: .finished)
        upstream.send(completion: .failure(.other))
        #expect(errors.count == 1)
        #expect(subscriber.events == [.subscription("Catch")] + (1...8).map { .value($0) } + [.value(100), .finished])
        #expect(upstream.calls == [.request(.max(12)), .request(.max(5))])
    }

    @Test func upstreamFinishingFinishes() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        let handled = SequencingCounter()
        upstream.catch { error -> TestPublisher<Int, TestError> in
            handled.increment()
            return TestPublisher()
        }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .finished)
        upstream.send(completion: .failure(.oops))
        #expect(upstream.send(2) == .none)
        #expect(subscriber.events == [.subscription("Catch"), .value(1), .finished])
        #expect(handled.count == 0)
    }

    @Test func theReplacementsFailureIsPassedOn() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        upstream.catch { [unowned replacement] _ in replacement }.subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        replacement.send(completion: .failure(.other))
        replacement.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Catch"), .failure(.other)])
        #expect(replacement.calls == [.request(.unlimited)])
    }

    @Test func requestsWhileTheReplacementSubscribesAreGathered() throws {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { subscriber.cancel() }
        upstream.catch { [unowned replacement] _ in replacement }.subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(.oops))
        try #require(subscriber.subscription).request(.max(10))
        let link = TestPublisher<Int, Never>()
        replacement.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: link))
        #expect(link.calls == [.request(.max(12))])
        try #require(subscriber.subscription).request(.max(1))
        #expect(link.calls == [.request(.max(12)), .request(.max(1))])
        let extra = TestPublisher<Int, Never>()
        replacement.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: extra))
        #expect(extra.calls == [.cancel])
        #expect(upstream.calls == [.request(.max(3))])
    }

    @Test func noDemandLeftMeansNoRequestToTheReplacement() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.catch { [unowned replacement] _ in replacement }.subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        #expect(replacement.subscriptions == 1)
        #expect(replacement.calls == [])
        subscriber.request(.max(4))
        #expect(replacement.calls == [.request(.max(4))])
        replacement.send(8)
        #expect(subscriber.values == [8])
    }

    @Test func cancelBeforeAndAfterRecovering() {
        let upstream = TestPublisher<Int, TestError>()
        let handled = SequencingCounter()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        upstream.catch { _ -> TestPublisher<Int, Never> in
            handled.increment()
            return TestPublisher()
        }.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(9))
        #expect(upstream.send(1) == .none)
        upstream.send(completion: .failure(.oops))
        #expect(upstream.calls == [.request(.max(1)), .cancel])
        #expect(handled.count == 0)
        #expect(subscriber.events == [.subscription("Catch")])

        let failing = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, Never>()
        let recovered = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { recovered.cancel() }
        failing.catch { [unowned replacement] _ in replacement }.subscribe(recovered)
        failing.send(completion: .failure(.oops))
        recovered.cancel()
        #expect(replacement.send(1) == .none)
        replacement.send(completion: .finished)
        #expect(replacement.calls == [.request(.max(2)), .cancel])
        #expect(recovered.events == [.subscription("Catch")])
    }

    @Test func cancelWhileTheReplacementSubscribesCancelsIt() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { subscriber.cancel() }
        upstream.catch { [unowned replacement] _ in replacement }.subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        subscriber.cancel()
        let link = TestPublisher<Int, Never>()
        replacement.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: link))
        #expect(link.calls == [.cancel])
        #expect(subscriber.events == [.subscription("Catch")])
    }

    @Test func tryCatchFailsWithTheHandlersError() {
        let upstream = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, SequencingTryError>()
        defer { subscriber.cancel() }
        upstream.tryCatch { error -> TestPublisher<Int, TestError> in throw TestError.other }
            .mapToSequencingTryError()
            .subscribe(subscriber)
        upstream.send(1)
        upstream.send(completion: .failure(.oops))
        upstream.send(completion: .failure(.oops))
        #expect(upstream.send(2) == .none)
        #expect(
            subscriber.events == [.subscription("TryCatch"), .value(1), .failure(SequencingTryError(TestError.other))])
        #expect(upstream.calls == [.request(.unlimited)])
    }

    @Test func tryCatchRecoversAndPassesTheReplacementsCompletion() {
        let upstream = TestPublisher<Int, TestError>()
        let replacement = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, SequencingTryError>()
        defer { subscriber.cancel() }
        upstream.tryCatch { [unowned replacement] _ in replacement }.mapToSequencingTryError().subscribe(subscriber)
        upstream.send(completion: .failure(.oops))
        replacement.send(4)
        replacement.send(completion: .failure(.other))
        #expect(
            subscriber.events == [.subscription("TryCatch"), .value(4), .failure(SequencingTryError(TestError.other))])
    }

    @Test func honoursDemandOneAtATimeAcrossTheReplacement() {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        SequencingSyncPublisher<Int, TestError>(Array(0..<10_000), completion: .failure(.oops))
            .catch { _ in SequencingSyncPublisher<Int, Never>(Array(10_000..<20_000)) }
            .subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<20_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
    }

    @Test func subscribersShareTheSubscriptionsIdentityDescriptionAndMirror() throws {
        let upstream = LatePublisher<Int, TestError>()
        let replacement = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        upstream.catch { [unowned replacement] _ in replacement }.subscribe(subscriber)
        upstream.subscriber?.receive(subscription: Subscriptions.empty)
        upstream.subscriber?.receive(completion: .failure(.oops))
        let upstreamSubscriber = try #require(upstream.erased)
        let replacementSubscriber = try #require(replacement.erased)
        let subscription = try #require(subscriber.subscription)
        #expect(upstreamSubscriber.combineIdentifier == subscription.combineIdentifier)
        #expect(replacementSubscriber.combineIdentifier == subscription.combineIdentifier)
        #expect(String(describing: upstreamSubscriber) == "Catch")
        #expect(String(describing: replacementSubscriber) == "Catch")
        #expect(
            (replacementSubscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "Catch")
        #expect(
            (upstreamSubscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Catch"
        )
        let labels = (subscription as? any CustomReflectable)?.customMirror.children.map(\.label)
        #expect(labels == ["downstream", "demand"])
        #expect((upstreamSubscriber as? any CustomReflectable)?.customMirror.children.count == 2)
        #expect((replacementSubscriber as? any CustomReflectable)?.customMirror.children.count == 2)
        let secondUpstream = TestPublisher<Int, TestError>()
        upstream.subscriber?.receive(
            subscription: TestPublisher<Int, TestError>.TestSubscription(publisher: secondUpstream))
        #expect(secondUpstream.calls == [.cancel])
    }

    @Test func concurrentRequestsAcrossTheSwitch() {
        for _ in 0..<50 {
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            defer { subscriber.cancel() }
            SequencingSyncPublisher<Int, TestError>(Array(0..<100), completion: .failure(.oops))
                .catch { _ in SequencingSyncPublisher<Int, Never>(Array(100..<1_000)) }
                .subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<50 { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values.elementsEqual(0..<400))
            #expect(subscriber.demandViolations == 0)
        }
    }
}
