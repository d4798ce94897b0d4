import Testing

@testable import Ripple

@Suite("ReplaySubject")
struct ReplaySubjectTests {
    @Test func worksAsASubjectForMulticast() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast { ReplaySubject<Int, Never>(capacity: 2) }
        let early = TestSubscriber<Int, Never>()
        defer { early.cancel() }
        multicast.subscribe(early)
        let connection = multicast.connect()
        #expect(upstream.calls == [.request(.unlimited)])
        for value in 1...3 { upstream.send(value) }
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        multicast.subscribe(late)
        upstream.send(completion: .finished)
        #expect(early.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .finished])
        #expect(late.events == [.subscription("Multicast"), .value(2), .value(3), .finished])
        connection.cancel()
    }

    @Test func directSubscribersAndSends() {
        let subject = ReplaySubject<Int, TestError>(capacity: 1)
        subject.send(1)
        subject.send(2)
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subject.send(3)
        #expect(!subject.isCompleted)
        subject.send(completion: .failure(.oops))
        subject.send(completion: .finished)
        subject.send(4)
        #expect(subject.isCompleted)
        #expect(subscriber.events == [.subscription("ReplaySubject"), .value(2), .value(3), .failure(.oops)])
    }

    @Test func subscriptionGivenAfterCompletionIsCancelled() {
        let subject = ReplaySubject<Int, Never>(capacity: 1)
        subject.send(completion: .finished)
        let subscription = MulticastingRecordingSubscription()
        subject.send(subscription: subscription)
        #expect(subscription.calls == [.cancel])
    }

    @Test func upstreamsAreRequestedOnDemandAndCancelledWhenTheSubjectGoesAway() {
        var subject: ReplaySubject<Int, Never>? = ReplaySubject(capacity: 1)
        let early = MulticastingRecordingSubscription()
        subject?.send(subscription: early)
        #expect(early.calls.isEmpty)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        subject?.subscribe(subscriber)
        #expect(early.calls == [.request(.unlimited)])
        let late = MulticastingRecordingSubscription()
        subject?.send(subscription: late)
        #expect(late.calls == [.request(.unlimited)])
        subscriber.cancel()
        subject = nil
        #expect(early.calls == [.request(.unlimited), .cancel])
        #expect(late.calls == [.request(.unlimited), .cancel])
    }

    @Test func connectionForgetsItsUpstreamWhenCancelledOrCompleted() {
        var subject: ReplaySubject<Int, Never>? = ReplaySubject(capacity: 1)
        let first = TestPublisher<Int, Never>()
        let firstConnection = subject?.connect(to: first)
        firstConnection?.cancel()
        #expect(first.calls == [.cancel])
        let second = TestPublisher<Int, Never>()
        let secondConnection = subject?.connect(to: second)
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject?.subscribe(subscriber)
        second.send(1)
        second.send(completion: .finished)
        second.send(2)
        secondConnection?.cancel()
        subject = nil
        // Neither upstream was kept by the subject: nothing more is cancelled when it goes away.
        #expect(first.calls == [.cancel])
        #expect(second.calls == [.request(.unlimited)])
        #expect(subscriber.events == [.subscription("ReplaySubject"), .value(1), .finished])
    }

    @Test func connectionSubscriberRefusesASecondSubscriptionAndForwardsRequests() throws {
        /// Hands out one recording subscription and keeps the subscriber it was given.
        final class CapturingPublisher: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            let subscription = MulticastingRecordingSubscription()
            var captured: (any Subscriber<Int, Never>)?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                captured = subscriber
                subscriber.receive(subscription: subscription)
            }
        }
        let subject = ReplaySubject<Int, Never>(capacity: 1, name: "Replay")
        let upstream = CapturingPublisher()
        let connection = subject.connect(to: upstream)
        let connectionSubscriber = try #require(upstream.captured)
        let asSubscription = try #require(connectionSubscriber as? any Subscription)
        #expect(String(describing: connectionSubscriber) == "Replay")
        asSubscription.request(.max(3))
        let other = MulticastingRecordingSubscription()
        connectionSubscriber.receive(subscription: other)
        #expect(other.calls == [.cancel])
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        #expect(connectionSubscriber.receive(1) == .none)
        connection.cancel()
        connection.cancel()
        #expect(connectionSubscriber.receive(2) == .none)
        connectionSubscriber.receive(completion: .finished)
        asSubscription.request(.max(1))
        #expect(upstream.subscription.calls == [.request(.max(3)), .request(.unlimited), .cancel])
        #expect(subscriber.events == [.subscription("Replay"), .value(1)])
        #expect(!subject.isCompleted)
    }
}
