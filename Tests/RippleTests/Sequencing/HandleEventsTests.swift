import Dispatch
import RippleTestSupport
import Testing

@testable import Ripple

/// What the closures of `handleEvents` saw.
private enum Seen: Equatable, Sendable {
    case subscription(String)
    case output(Int)
    case completion(Subscribers.Completion<TestError>)
    case cancel
    case request(Subscribers.Demand)
}

private final class SeenLog: Sendable {
    private let state = LockedBox<[Seen]>([])
    var all: [Seen] { state.withLock { $0 } }
    func append(_ seen: Seen) { state.withLock { $0.append(seen) } }
}

extension Publisher where Output == Int, Failure == TestError {
    fileprivate func handleAll(_ log: SeenLog) -> Publishers.HandleEvents<Self> {
        handleEvents(
            receiveSubscription: { log.append(.subscription(String(describing: $0))) },
            receiveOutput: { log.append(.output($0)) },
            receiveCompletion: { log.append(.completion($0)) },
            receiveCancel: { log.append(.cancel) },
            receiveRequest: { log.append(.request($0)) }
        )
    }
}

@Suite("handleEvents (Publishers.HandleEvents)")
struct HandleEventsTests {
    @Test func reportsEveryEventBeforePassingItOn() throws {
        let log = SeenLog()
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2), onValue: { .max($0) })
        defer { subscriber.cancel() }
        publisher.handleAll(log).subscribe(subscriber)
        #expect(subscriber.events == [.subscription("HandleEvents")])
        #expect(publisher.calls == [.request(.max(2))])
        #expect(publisher.send(0) == .none)
        #expect(publisher.send(3) == .max(3))
        try #require(subscriber.subscription).request(.max(7))
        publisher.send(completion: .finished)
        publisher.send(completion: .failure(.oops))
        #expect(publisher.send(9) == .none)
        #expect(subscriber.events == [.subscription("HandleEvents"), .value(0), .value(3), .finished])
        #expect(publisher.calls == [.request(.max(2)), .request(.max(7))])
        #expect(
            log.all == [
                .subscription("TestSubscription"), .request(.max(2)), .output(0), .output(3), .request(.max(3)),
                .request(.max(7)), .completion(.finished),
            ])
    }

    @Test func cancelIsReportedOnceAndReleasesTheClosures() throws {
        let log = SeenLog()
        let publisher = TestPublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(2))
        defer { subscriber.cancel() }
        publisher.handleAll(log).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        try #require(subscriber.subscription).request(.max(1))
        #expect(publisher.send(1) == .none)
        publisher.send(completion: .finished)
        #expect(subscriber.events == [.subscription("HandleEvents")])
        #expect(publisher.calls == [.request(.max(2)), .cancel])
        #expect(log.all == [.subscription("TestSubscription"), .request(.max(2)), .cancel])
    }

    @Test func closuresAreReleasedWhenTheStreamEnds() {
        final class Owner: Sendable {}
        weak var weakOwner: Owner?
        let publisher = TestPublisher<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        defer { subscriber.cancel() }
        do {
            let owner = Owner()
            weakOwner = owner
            publisher.handleEvents(receiveOutput: { _ in _ = owner }).subscribe(subscriber)
        }
        #expect(weakOwner != nil)
        publisher.send(completion: .finished)
        #expect(weakOwner == nil)
    }

    @Test func aSecondSubscriptionIsReportedAndCancelled() {
        final class Relay: Publisher, @unchecked Sendable {
            typealias Output = Int
            typealias Failure = TestError
            var subscriber: AnySubscriber<Int, TestError>?
            func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
                self.subscriber = AnySubscriber(subscriber)
            }
        }
        let log = SeenLog()
        let relay = Relay()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil)
        defer { subscriber.cancel() }
        relay.handleAll(log).subscribe(subscriber)
        let first = TestPublisher<Int, TestError>()
        let second = TestPublisher<Int, TestError>()
        relay.subscriber?.receive(subscription: TestPublisher<Int, TestError>.TestSubscription(publisher: first))
        relay.subscriber?.receive(subscription: TestPublisher<Int, TestError>.TestSubscription(publisher: second))
        #expect(second.calls == [.cancel])
        #expect(first.calls == [])
        #expect(log.all == [.subscription("TestSubscription"), .subscription("TestSubscription")])
        #expect(subscriber.events == [.subscription("HandleEvents")])
    }

    @Test func withoutClosuresItIsTransparent() throws {
        let subscriber = TestSubscriber<Int, Never>.oneAtATime()
        defer { subscriber.cancel() }
        let handle = SequencingSyncPublisher<Int, Never>(Array(0..<5_000)).handleEvents()
        #expect(handle.receiveOutput == nil && handle.receiveRequest == nil && handle.receiveCancel == nil)
        handle.subscribe(subscriber)
        #expect(subscriber.values.elementsEqual(0..<5_000))
        #expect(subscriber.completion == .finished)
        #expect(subscriber.demandViolations == 0)
        let waiting = TestSubscriber<Int, Never>(initialDemand: nil)
        defer { waiting.cancel() }
        handle.subscribe(waiting)
        let subscription = try #require(waiting.subscription)
        #expect(
            (subscription as? any CustomPlaygroundDisplayConvertible)?.playgroundDescription as? String
                == "HandleEvents")
        #expect((subscription as? any CustomReflectable)?.customMirror.children.isEmpty == true)
        waiting.cancel()
    }

    @Test func concurrentRequestsAndCancel() {
        for _ in 0..<50 {
            let requests = SequencingCounter()
            let cancels = SequencingCounter()
            let source = SequencingSyncPublisher<Int, Never>(Array(0..<10_000))
            let subscriber = TestSubscriber<Int, Never>(initialDemand: nil)
            source.handleEvents(receiveCancel: { cancels.increment() }, receiveRequest: { _ in requests.increment() })
                .subscribe(subscriber)
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                for _ in 0..<100 { subscriber.request(.max(1)) }
                if index == 3 { subscriber.cancel() }
            }
            #expect(cancels.count == 1)
            #expect(subscriber.demandViolations == 0)
            #expect(subscriber.values.elementsEqual(0..<subscriber.values.count))
            #expect(requests.count <= 400)
        }
    }

    /// As in Combine, a value before the subscription is reported and passed on (with the demand the
    /// downstream answers), a request before it is reported, and a cancel before it is reported and
    /// otherwise forgotten (a downstream that follows the contract cannot send it): the late subscription
    /// is taken as usual.
    @Test func signalsBeforeTheSubscriptionAreReportedAsCombineDoes() throws {
        let log = SeenLog()
        let upstream = LatePublisher<Int, TestError>()
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: nil, onValue: { _ in .max(42) })
        defer { subscriber.cancel() }
        upstream.handleAll(log).subscribe(subscriber)
        #expect(upstream.send(1) == .max(42))
        let early = try #require(upstream.subscriberAsSubscription)
        early.request(.max(1))
        early.cancel()
        upstream.sendSubscription()
        #expect(upstream.subscription.calls == [])
        #expect(subscriber.events == [.value(1), .subscription("HandleEvents")])
        subscriber.request(.max(3))
        subscriber.cancel()
        #expect(upstream.subscription.calls == [.request(.max(3)), .cancel])
        #expect(
            log.all == [
                .output(1), .request(.max(42)), .request(.max(1)), .cancel, .subscription("RecordingSubscription"),
                .request(.max(3)), .cancel,
            ])
    }
}
