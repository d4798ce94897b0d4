import Dispatch
import Testing

@testable import Ripple

@Suite("PassthroughSubject")
struct PassthroughSubjectTests {
    @Test func deliversOnlyWhatIsDemanded() {
        let subject = PassthroughSubject<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        for value in 1...4 { subject.send(value) }
        subscriber.request(.max(1))
        subject.send(5)
        subject.send(completion: .failure(.oops))
        subject.send(6)
        subject.send(completion: .finished)
        #expect(
            subscriber.events == [
                .subscription("PassthroughSubject"), .value(1), .value(2), .value(5), .failure(.oops),
            ])
        #expect(subscriber.demandViolations == 0)
        #expect(subscriber.orderViolations == 0)
    }

    @Test func demandReturnedFromReceiveCounts() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        for value in 1...5 { subject.send(value) }
        #expect(subscriber.values == [1, 2, 3, 4, 5])
        #expect(subscriber.demandViolations == 0)
    }

    @Test func noValueBeforeDemandAndNoReplay() {
        let subject = PassthroughSubject<Int, Never>()
        subject.send(0)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        subject.send(1)
        subscriber.request(.unlimited)
        subject.send(2)
        #expect(subscriber.values == [2])
    }

    @Test func lateSubscriberGetsTheCompletionAtOnce() {
        let subject = PassthroughSubject<Int, TestError>()
        subject.send(completion: .failure(.other))
        let subscriber = TestSubscriber<Int, TestError>()
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        #expect(subscriber.events == [.subscription("Empty"), .failure(.other)])
    }

    @Test func fansOutToEverySubscriberInOrder() {
        let subject = PassthroughSubject<Int, Never>()
        let subscribers = (0..<4).map { _ in TestSubscriber<Int, Never>() }
        for subscriber in subscribers { subject.subscribe(subscriber) }
        subject.send(1)
        subject.send(2)
        subject.send(completion: .finished)
        for subscriber in subscribers {
            #expect(subscriber.events == [.subscription("PassthroughSubject"), .value(1), .value(2), .finished])
        }
    }

    @Test func cancelStopsDeliveryToThatSubscriberOnly() {
        let subject = PassthroughSubject<Int, Never>()
        let kept = TestSubscriber<Int, Never>()
        defer { kept.cancel() }
        let cancelled = TestSubscriber<Int, Never>()
        defer { cancelled.cancel() }
        subject.subscribe(kept)
        subject.subscribe(cancelled)
        subject.send(1)
        cancelled.cancel()
        cancelled.cancel()
        subject.send(2)
        subject.send(completion: .finished)
        #expect(kept.values == [1, 2])
        #expect(cancelled.events == [.subscription("PassthroughSubject"), .value(1)])
        // Requests after cancel are ignored.
        cancelled.request(.max(1))
    }

    @Test func cancelInsideReceiveStopsAtOnce() {
        let subject = PassthroughSubject<Int, Never>()
        var subscriber: TestSubscriber<Int, Never>!
        subscriber = TestSubscriber(onValue: { value in
            if value == 2 { subscriber.cancel() }
            return .none
        })
        subject.subscribe(subscriber)
        for value in 1...4 { subject.send(value) }
        #expect(subscriber.values == [1, 2])
    }

    @Test func reentrantSendsKeepTheOrderForEverySubscriber() {
        let subject = PassthroughSubject<Int, Never>()
        let echoing = TestSubscriber<Int, Never>(onValue: { value in
            if value < 3 { subject.send(value + 10) }
            return .none
        })
        defer { echoing.cancel() }
        let observer = TestSubscriber<Int, Never>()
        defer { observer.cancel() }
        subject.subscribe(echoing)
        subject.subscribe(observer)
        subject.send(1)
        subject.send(2)
        #expect(echoing.values == [1, 11, 2, 12])
        #expect(observer.values == [1, 11, 2, 12])
    }

    @Test func reentrantCompletionAndSubscription() {
        let subject = PassthroughSubject<Int, Never>()
        let late = TestSubscriber<Int, Never>()
        defer { late.cancel() }
        let first = TestSubscriber<Int, Never>(onValue: { value in
            if value == 1 {
                subject.subscribe(late)
                subject.send(completion: .finished)
            }
            return .none
        })
        defer { first.cancel() }
        subject.subscribe(first)
        subject.send(1)
        subject.send(2)
        #expect(first.events == [.subscription("PassthroughSubject"), .value(1), .finished])
        #expect(late.events == [.subscription("PassthroughSubject"), .finished])
    }

    @Test func subscriberThatCancelsDuringSubscriptionGetsNothing() {
        let subject = PassthroughSubject<Int, Never>()
        var values: [Int] = []
        let subscriber = AnySubscriber<Int, Never>(
            receiveSubscription: {
                $0.request(.unlimited)
                $0.cancel()
            },
            receiveValue: {
                values.append($0)
                return .none
            }
        )
        subject.subscribe(subscriber)
        subject.send(1)
        #expect(values.isEmpty)
    }

    @Test func requestsUnlimitedFromUpstreamOnceThereIsDemand() {
        let upstream = TestPublisher<Int, Never>()
        let subject = PassthroughSubject<Int, Never>()
        let cancellable = upstream.subscribe(subject)
        #expect(upstream.calls.isEmpty)
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        #expect(upstream.calls == [.request(.unlimited)])
        upstream.send(7)
        upstream.send(8)
        #expect(subscriber.values == [7])
        // A second upstream attached after demand exists is asked at once.
        let second = TestPublisher<Int, Never>()
        let secondCancellable = second.subscribe(subject)
        #expect(second.calls == [.request(.unlimited)])
        cancellable.cancel()
        #expect(upstream.calls == [.request(.unlimited), .cancel])
        upstream.send(9)
        second.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        secondCancellable.cancel()
    }

    @Test func subjectGoingAwayCancelsItsUpstreams() {
        let upstream = TestPublisher<Int, Never>()
        var subject: PassthroughSubject<Int, Never>? = PassthroughSubject()
        subject?.send(subscription: TestPublisher.TestSubscription(publisher: upstream))
        #expect(upstream.calls.isEmpty)
        subject = nil
        #expect(upstream.calls == [.cancel])
        #expect(SubjectSubscriber(PassthroughSubject<Int, Never>()).description == "Subject")
    }

    @Test func subjectSubscriberCancelsASecondSubscriptionAndForwardsRequests() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = SubjectSubscriber(subject)
        let first = TestPublisher<Int, Never>()
        let second = TestPublisher<Int, Never>()
        first.subscribe(subscriber)
        second.subscribe(subscriber)
        #expect(second.calls == [.cancel])
        subscriber.request(.max(3))
        #expect(first.calls == [.request(.max(3))])
        first.send(completion: .finished)
        #expect(first.send(1) == .none)
        subscriber.cancel()
        subscriber.request(.max(1))
        #expect(first.calls == [.request(.max(3))])
    }

    @Test func concurrentSendsAreSerialisedAndNoneIsLost() async {
        let subject = PassthroughSubject<Int, Never>()
        let counter = ConcurrentCounter()
        let subscriber = TestSubscriber<Int, Never>(onValue: { _ in
            counter.enter()
            counter.leave()
            return .none
        })
        defer { subscriber.cancel() }
        subject.subscribe(subscriber)
        let perThread = 20_000
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<perThread { subject.send(thread * perThread + index) }
        }
        #expect(subscriber.values.count == 4 * perThread)
        #expect(counter.maximumConcurrency == 1)
        // Each thread's values arrive in the order that thread sent them.
        var last = [Int](repeating: -1, count: 4)
        var ordered = true
        for value in subscriber.values {
            let thread = value / perThread
            if value <= last[thread] { ordered = false }
            last[thread] = value
        }
        #expect(ordered)
    }

    @Test func concurrentSubscribeCancelRequestAndSend() {
        let subject = PassthroughSubject<Int, Never>()
        let stable = TestSubscriber<Int, Never>()
        defer { stable.cancel() }
        subject.subscribe(stable)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<2_000 {
                if thread == 0 {
                    subject.send(index)
                } else {
                    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
                    subject.subscribe(subscriber)
                    subscriber.request(.max(2))
                    subscriber.cancel()
                    #expect(subscriber.demandViolations == 0)
                    #expect(subscriber.values.count <= 3)
                }
            }
        }
        subject.send(completion: .finished)
        #expect(stable.values == Array(0..<2_000))
        #expect(stable.completion == .finished)
    }

    @Test func concurrentCompletionIsDeliveredOnce() {
        for _ in 0..<200 {
            let subject = PassthroughSubject<Int, TestError>()
            let subscriber = TestSubscriber<Int, TestError>()
            subject.subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                if thread % 2 == 0 { subject.send(completion: .finished) } else { subject.send(thread) }
            }
            #expect(subscriber.events.last == .finished)
            #expect(subscriber.orderViolations == 0)
        }
    }
}

/// Counts how many threads are inside a region at once.
final class ConcurrentCounter: @unchecked Sendable {
    private let lock = Lock()
    private var inside = 0
    private var maximum = 0
    func enter() {
        lock.withLock {
            inside += 1
            maximum = max(maximum, inside)
        }
    }
    func leave() { lock.withLock { inside -= 1 } }
    var maximumConcurrency: Int { lock.withLock { maximum } }
}
