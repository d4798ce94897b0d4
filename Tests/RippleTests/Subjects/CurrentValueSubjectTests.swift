import Dispatch
import Testing

@testable import Ripple

@Suite("CurrentValueSubject")
struct CurrentValueSubjectTests {
    @Test func deliversTheCurrentValueFirstOnDemand() {
        let subject = CurrentValueSubject<Int, TestError>(1)
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("CurrentValueSubject")])
        subscriber.request(.max(2))
        subject.send(2)
        subject.send(3)
        #expect(subscriber.values == [1, 2])
        #expect(subject.value == 3)
        subscriber.request(.max(1))
        #expect(subscriber.values == [1, 2, 3], "the value sent without demand arrives on the next request")
        subject.send(completion: .failure(.oops))
        subject.send(4)
        #expect(subject.value == 3, "sends after completion do not change the value")
        #expect(subscriber.events.last == .failure(.oops))
        #expect(subscriber.demandViolations == 0)
    }

    @Test func onlyTheLatestMissedValueIsDelivered() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        subscriber.request(.max(5))
        subject.send(4)
        #expect(subscriber.values == [0, 3, 4])
    }

    @Test func settingValueSends() {
        let subject = CurrentValueSubject<String, Never>("a")
        let subscriber = TestSubscriber<String, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subject.value = "b"
        subject.send("c")
        #expect(subscriber.values == ["a", "b", "c"])
        #expect(subject.value == "c")
    }

    @Test func oneAtATimeSubscriber() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        for value in 1...3 { subject.send(value) }
        #expect(subscriber.values == [0, 1, 2, 3])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func requestInsideReceiveDoesNotRecurse() {
        let subject = CurrentValueSubject<Int, Never>(0)
        var subscriber: TestSubscriber<Int, Never>!
        subscriber = TestSubscriber(
            initialDemand: .max(1),
            onValue: { _ in
                subscriber.request(.max(1))
                return .none
            })
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subject.send(1)
        subject.send(2)
        #expect(subscriber.values == [0, 1, 2])
    }

    @Test func lateSubscriberAfterCompletion() {
        let subject = CurrentValueSubject<Int, Never>(5)
        subject.send(completion: .finished)
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .finished])
    }

    @Test func cancelledSubscriberReceivesNothingMore() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subscriber.cancel()
        subject.send(1)
        subscriber.request(.max(1))
        #expect(subscriber.values == [0])
    }

    @Test func upstreamIsRequestedAtOnceAndCancelledOnDeinit() {
        let upstream = TestPublisher<Int, Never>()
        var subject: CurrentValueSubject<Int, Never>? = CurrentValueSubject(0)
        if let subject {
            let cancellable = upstream.subscribe(subject)
            let subscriber = TestSubscriber<Int, Never>()
            subject.subscribe(subscriber)
            upstream.send(1)
            #expect(subscriber.values == [0, 1])
            #expect(upstream.calls == [.request(.unlimited)])
            // A live subscription keeps its subject alive (as in Combine): end it.
            subscriber.cancel()
            _ = cancellable
        }
        subject = nil
        #expect(upstream.calls.last == .cancel)
    }

    @Test func concurrentSendersAndSubscribers() {
        let subject = CurrentValueSubject<Int, Never>(0)
        let observer = TestSubscriber<Int, Never>()
        defer { observer.cancel() }
        subject.subscribe(observer)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 1...2_000 {
                if thread < 2 {
                    subject.send(index)
                } else {
                    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
                    subject.subscribe(subscriber)
                    #expect(subscriber.values.count <= 1)
                    subscriber.cancel()
                    _ = subject.value
                }
            }
        }
        #expect(observer.values.count == 4_001)
        #expect(observer.demandViolations == 0)
    }
}
