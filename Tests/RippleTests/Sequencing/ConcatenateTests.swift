import Dispatch
import Testing

@testable import Ripple

private struct EquatablePublisher: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = Never
    let id: Int
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}

@Suite("append, prepend (Publishers.Concatenate)")
struct ConcatenateTests {
    @Test func emitsThePrefixThenTheSuffixWithTheDemandLeft() {
        let first = TestPublisher<Int, TestError>()
        let second = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(10), onValue: { .max($0) })
        defer { subscriber.cancel() }
        first.append(second).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Concatenate")])
        #expect(first.calls == [.request(.max(10))])
        #expect(second.subscriptions == 0)

        #expect(first.send(1) == .max(1))
        #expect(first.send(2) == .max(2))
        #expect(first.send(3) == .max(3))
        first.send(completion: .finished)
        #expect(second.calls == [.request(.max(13))])
        #expect(first.send(4000) == .none)
        #expect(second.send(5) == .max(5))
        second.send(completion: .finished)
        second.send(completion: .failure(.oops))
        #expect(second.send(7) == .none)
        #expect(
            subscriber.events == [.subscription("Concatenate"), .value(1), .value(2), .value(3), .value(5), .finished])
        #expect(first.calls == [.request(.max(10))])
        #expect(second.calls == [.request(.max(13))])
    }

    @Test func prefixFailureEndsTheStreamWithoutTheSuffix() {
        let first = TestPublisher<Int, TestError>()
        let second = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        second.prepend(first).subscribe(subscriber)
        first.send(1)
        first.send(completion: .failure(.oops))
        first.send(completion: .finished)
        #expect(first.send(2) == .none)
        #expect(subscriber.events == [.subscription("Concatenate"), .value(1), .failure(.oops)])
        #expect(second.subscriptions == 0)
    }

    @Test func prefixValuesBeyondDemandAreDropped() {
        let first = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        first.append(TestPublisher<Int, Never>()).subscribe(subscriber)
        first.send(1)
        #expect(first.send(2) == .none)
        #expect(subscriber.values == [1])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func demandArrivingWhileTheSuffixSubscribesIsPassedOn() throws {
        let first = TestPublisher<Int, Never>()
        let second = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { subscriber.cancel() }
        first.append(second).subscribe(subscriber)
        first.send(1)
        first.send(completion: .finished)
        try #require(subscriber.subscription).request(.max(7))
        let link = TestPublisher<Int, Never>()
        second.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: link))
        #expect(link.calls == [.request(.max(9))])
        try #require(subscriber.subscription).request(.unlimited)
        #expect(link.calls == [.request(.max(9)), .request(.unlimited)])
        let extra = TestPublisher<Int, Never>()
        second.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: extra))
        #expect(extra.calls == [.cancel])
        #expect(first.calls == [.request(.max(3))])
    }

    @Test func noDemandLeftMeansNoRequestToTheSuffix() {
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        first.append(second).subscribe(subscriber)
        first.send(1)
        first.send(completion: .finished)
        #expect(second.subscriptions == 1)
        #expect(second.calls == [])
        subscriber.request(.max(2))
        #expect(second.calls == [.request(.max(2))])
    }

    @Test func cancelReachesWhicheverPublisherIsActive() throws {
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        first.append(second).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(3))
        first.send(1)
        first.send(completion: .finished)
        #expect(first.calls == [.request(.max(2)), .cancel])
        #expect(second.subscriptions == 0)
        #expect(subscriber.events == [.subscription("Concatenate")])

        let third = TestPublisher<Int, Never>()
        let fourth = TestPublisher<Int, Never>()
        let suffixSubscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { suffixSubscriber.cancel() }
        third.append(fourth).subscribe(suffixSubscriber)
        third.send(completion: .finished)
        suffixSubscriber.cancel()
        fourth.send(9)
        fourth.send(completion: .finished)
        #expect(fourth.calls == [.request(.max(2)), .cancel])
        #expect(suffixSubscriber.events == [.subscription("Concatenate")])
    }

    @Test func cancelWhileTheSuffixSubscribesCancelsItsSubscription() {
        let first = TestPublisher<Int, Never>()
        let second = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { subscriber.cancel() }
        first.append(second).subscribe(subscriber)
        first.send(completion: .finished)
        subscriber.cancel()
        let link = TestPublisher<Int, Never>()
        second.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: link))
        second.subscriber?.receive(completion: .finished)
        #expect(link.calls == [.cancel])
        #expect(subscriber.events == [.subscription("Concatenate")])
    }

    @Test func secondPrefixSubscriptionIsCancelled() {
        let first = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        first.append(TestPublisher<Int, Never>()).subscribe(subscriber)
        let one = TestPublisher<Int, Never>()
        let two = TestPublisher<Int, Never>()
        first.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: one))
        first.subscriber?.receive(subscription: TestPublisher<Int, Never>.TestSubscription(publisher: two))
        #expect(one.calls == [])
        #expect(two.calls == [.cancel])
        #expect(subscriber.events == [.subscription("Concatenate")])
    }

    @Test func honoursDemandOneAtATimeAcrossBothPublishers() {
        let subscriber = TestSubscriber<Int, TestError>.oneAtATime()
        defer { subscriber.cancel() }
        let first = SequencingSyncPublisher<Int, TestError>(Array(0..<10_000))
        let second = SequencingSyncPublisher<Int, TestError>(Array(10_000..<20_000), completion: .failure(.oops))
        first.append(second).subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<20_000))
        #expect(subscriber.completion == .failure(.oops))
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func subscribersShareTheSubscriptionsIdentityAndDescription() throws {
        let first = LatePublisher<Int, Never>()
        let second = LatePublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        let concatenate = first.append(second)
        #expect(concatenate.prefix === first && concatenate.suffix === second)
        concatenate.subscribe(subscriber)
        first.subscriber?.receive(subscription: Subscriptions.empty)
        first.subscriber?.receive(completion: .finished)
        let prefixSubscriber = try #require(first.erased)
        let suffixSubscriber = try #require(second.erased)
        let subscription = try #require(subscriber.subscription)
        #expect(prefixSubscriber.combineIdentifier == subscription.combineIdentifier)
        #expect(suffixSubscriber.combineIdentifier == subscription.combineIdentifier)
        #expect(String(describing: prefixSubscriber) == "Concatenate")
        #expect(String(describing: suffixSubscriber) == "Concatenate")
        #expect(
            (suffixSubscriber as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "Concatenate")
        #expect((prefixSubscriber as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect((suffixSubscriber as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Concatenate"
        )
        #expect(
            EquatablePublisher(id: 1).append(EquatablePublisher(id: 2))
                == EquatablePublisher(id: 1).append(EquatablePublisher(id: 2)))
        #expect(
            EquatablePublisher(id: 1).append(EquatablePublisher(id: 2))
                != EquatablePublisher(id: 2).append(EquatablePublisher(id: 1)))
    }

    @Test func suffixIsReleasedOnceSubscribedOrCancelled() {
        final class Tracked: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {}
        }
        weak var weakSuffix: Tracked?
        let first = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        do {
            let suffix = Tracked()
            weakSuffix = suffix
            first.append(suffix).subscribe(subscriber)
        }
        #expect(weakSuffix != nil)
        subscriber.cancel()
        #expect(weakSuffix == nil)
    }

    @Test func concurrentRequestsDeliverExactlyWhatWasDemanded() {
        for _ in 0..<50 {
            let first = SequencingSyncPublisher<Int, Never>(Array(0..<200))
            let second = SequencingSyncPublisher<Int, Never>(Array(200..<1_000))
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            defer { subscriber.cancel() }
            first.append(second).subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<50 { subscriber.request(.max(1)) }
            }
            #expect(subscriber.values.elementsEqual(0..<400))
            #expect(subscriber.demandViolations == 0)
        }
    }

    @Test func valueAndSequenceForms() {
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        SequencingSyncPublisher<Int, Never>([3, 4]).prepend(1, 2).append(5, 6).append([7]).prepend([0]).subscribe(
            subscriber)
        #expect(subscriber.values.elementsEqual(0...7))
        #expect(subscriber.completion == .finished)
    }
}
