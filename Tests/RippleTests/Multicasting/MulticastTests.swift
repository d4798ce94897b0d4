import Dispatch
import Testing

@testable import Ripple

@Suite("Multicast")
struct MulticastTests {
    @Test func subscribersSeeValuesOnlyAfterConnect() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        multicast.subscribe(first)
        multicast.subscribe(second)
        #expect(upstream.subscriptions == 0)
        upstream.send(0)
        let connection = multicast.connect()
        #expect(upstream.subscriptions == 1)
        #expect(upstream.calls == [.request(.unlimited)])
        upstream.send(1)
        upstream.send(2)
        upstream.send(completion: .finished)
        for subscriber in [first, second] {
            #expect(subscriber.events == [.subscription("Multicast"), .value(1), .value(2), .finished])
        }
        #expect(upstream.calls == [.request(.unlimited)])
        connection.cancel()
    }

    @Test func reflectsAsCombineDoes() throws {
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        TestPublisher<Int, Never>().makeConnectable().subscribe(subscriber)
        let subscription = try #require(subscriber.subscription)
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String == "Multicast")
        subscriber.cancel()
    }

    @Test func lateSubscriberMissesEarlierValuesAndGetsOnlyWhatItDemands() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast(subject: PassthroughSubject<Int, Never>())
        let early = TestSubscriber<Int, Never>(initialDemand: .max(3))
        defer { early.cancel() }
        multicast.subscribe(early)
        let connection = multicast.connect()
        #expect(upstream.calls == [.request(.unlimited)])
        for value in 1...4 { upstream.send(value) }
        let late = TestSubscriber<Int, Never>(initialDemand: .max(2))
        defer { late.cancel() }
        multicast.subscribe(late)
        for value in 5...7 { upstream.send(value) }
        upstream.send(completion: .finished)
        let latest = TestSubscriber<Int, Never>()
        defer { latest.cancel() }
        multicast.subscribe(latest)
        #expect(early.events == [.subscription("Multicast"), .value(1), .value(2), .value(3), .finished])
        #expect(late.events == [.subscription("Multicast"), .value(5), .value(6), .finished])
        #expect(latest.events == [.subscription("Multicast"), .finished])
        #expect(upstream.calls == [.request(.unlimited)])
        #expect(early.demandViolations == 0 && late.demandViolations == 0)
        connection.cancel()
    }

    @Test func disconnectStopsValuesAndConnectingAgainResubscribes() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        var connection = multicast.connect()
        upstream.send(1)
        connection.cancel()
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(2)
        connection = multicast.connect()
        #expect(upstream.subscriptions == 2)
        #expect(upstream.calls == [.request(.unlimited), .cancel, .request(.unlimited)])
        upstream.send(3)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Multicast"), .value(1), .value(3), .finished])
        connection.cancel()
    }

    @Test func connectingTwiceAttachesTheSubjectTwice() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(10))
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        upstream.send(-1)
        let first = multicast.connect()
        let second = multicast.connect()
        upstream.send(42)
        upstream.send(completion: .finished)
        #expect(subscriber.events == [.subscription("Multicast"), .value(42), .value(42), .finished])
        first.cancel()
        second.cancel()
    }

    @Test func subjectIsCreatedOnceAndLazily() {
        let upstream = TestPublisher<Int, Never>()
        nonisolated(unsafe) var created = 0
        let multicast = upstream.multicast { () -> PassthroughSubject<Int, Never> in
            created += 1
            return PassthroughSubject()
        }
        #expect(created == 0)
        let first = TestSubscriber<Int, Never>()
        defer { first.cancel() }
        let second = TestSubscriber<Int, Never>()
        defer { second.cancel() }
        multicast.subscribe(first)
        multicast.subscribe(second)
        let connection = multicast.connect()
        #expect(created == 1)
        connection.cancel()
        #expect(multicast.upstream === upstream)
    }

    @Test func connectBeforeAnySubscriberCreatesTheSubject() {
        let upstream = TestPublisher<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let connection = multicast.connect()
        // The subject has no demand yet, so nothing is requested upstream.
        #expect(upstream.calls.isEmpty)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        #expect(upstream.calls == [.request(.unlimited)])
        upstream.send(5)
        upstream.send(6)
        #expect(subscriber.events == [.subscription("Multicast"), .value(5)])
        connection.cancel()
    }

    @Test func demandIsForwardedToTheSubjectSubscription() {
        let upstream = TestPublisher<Int, TestError>()
        let subject = MulticastingStealingSubject()
        let multicast = upstream.multicast(subject: subject)
        let subscriber = TestSubscriber<Int, TestError>(
            initialDemand: .max(42), onValue: { $0 < 0 ? .unlimited : .max($0) })
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        #expect(subject.subscription.calls == [.request(.max(42))])
        let inner = subject.subscribers[0]
        #expect(inner.receive(0) == .none)
        #expect(inner.receive(2) == .none)
        #expect(inner.receive(-1) == .none)
        #expect(subject.subscription.calls == [.request(.max(42)), .request(.max(2)), .request(.unlimited)])
        subscriber.request(.max(3))
        #expect(subject.subscription.calls.last == .request(.max(3)))
        // A second subscription is refused.
        let extra = MulticastingRecordingSubscription()
        inner.receive(subscription: extra)
        #expect(extra.calls == [.cancel])
        inner.receive(completion: .failure(.oops))
        inner.receive(completion: .finished)
        #expect(inner.receive(9) == .none)
        subscriber.request(.max(1))
        subscriber.cancel()
        #expect(subscriber.events == [.subscription("Multicast"), .value(0), .value(2), .value(-1), .failure(.oops)])
        #expect(
            subject.subscription.calls == [
                .request(.max(42)), .request(.max(2)), .request(.unlimited), .request(.max(3)),
            ])
    }

    @Test func cancelReachesTheSubjectOnceAndSilencesTheSubscriber() {
        let upstream = TestPublisher<Int, TestError>()
        let subject = MulticastingStealingSubject()
        let multicast = upstream.multicast(subject: subject)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        subscriber.request(.max(5))
        let inner = subject.subscribers[0]
        #expect(inner.receive(1) == .none)
        inner.receive(completion: .finished)
        #expect(subject.subscription.calls == [.cancel])
        #expect(subscriber.events == [.subscription("Multicast")])
    }

    @Test func signalsBeforeTheSubjectSubscriptionAreIgnored() {
        // A subject that sends values and a completion before the subscription.
        final class EagerSubject: Subject, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = Never
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
                #expect(subscriber.receive(1) == .none)
                subscriber.receive(completion: .finished)
                subscriber.receive(subscription: MulticastingRecordingSubscription())
            }
            func send(_ value: Int) {}
            func send(completion: Subscribers.Completion<Never>) {}
            func send(subscription: any Subscription) {}
        }
        let multicast = TestPublisher<Int, Never>().multicast(subject: EagerSubject())
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Multicast")])
    }

    @Test func cancelFromInsideReceiveStopsAtOnce() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        nonisolated(unsafe) var subscriber: TestSubscriber<Int, Never>!
        subscriber = TestSubscriber(onValue: { value in
            if value == 2 { subscriber.cancel() }
            return .none
        })
        multicast.subscribe(subscriber)
        let connection = multicast.connect()
        for value in 1...4 { upstream.send(value) }
        #expect(subscriber.values == [1, 2])
        connection.cancel()
    }

    @Test func oneAtATimeSubscriberGetsEveryValueItAsksFor() {
        let upstream = PassthroughSubject<Int, Never>()
        let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        multicast.subscribe(subscriber)
        let connection = multicast.connect()
        for value in 1...5 { upstream.send(value) }
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.demandViolations == 0)
        connection.cancel()
    }

    /// The connection is the subject's last owner: cancelling it releases the subject, whose deinit
    /// cancels its upstreams (the connection itself) without deadlocking.
    @Test func connectionOutlivesTheSubjectWithoutDeadlock() {
        let upstream = TestPublisher<Int, Never>()
        var multicast: Publishers.Multicast<TestPublisher<Int, Never>, PassthroughSubject<Int, Never>>? =
            upstream.multicast(subject: PassthroughSubject())
        let connection = multicast?.connect()
        multicast = nil
        connection?.cancel()
        #expect(upstream.subscriptions == 1)
        #expect(upstream.calls == [.request(.unlimited), .cancel] || upstream.calls == [.cancel])
    }

    @Test func concurrentSubscribersCancelsAndSends() {
        let upstream = PassthroughSubject<Int, Never>()
        nonisolated(unsafe) let multicast = upstream.multicast { PassthroughSubject<Int, Never>() }
        let stable = TestSubscriber<Int, Never>()
        defer { stable.cancel() }
        multicast.subscribe(stable)
        let connection = multicast.connect()
        let perThread = 2_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread {
                if thread < 2 {
                    upstream.send(thread * perThread + index)
                } else {
                    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), onValue: { _ in .max(1) })
                    multicast.subscribe(subscriber)
                    subscriber.request(.max(2))
                    subscriber.cancel()
                    #expect(subscriber.demandViolations == 0)
                    #expect(subscriber.orderViolations == 0)
                }
            }
        }
        upstream.send(completion: .finished)
        #expect(stable.values.count == 2 * perThread)
        #expect(multicastingEachSenderInOrder(stable.values, stride: perThread))
        #expect(stable.completion == .finished)
        connection.cancel()
    }
}
