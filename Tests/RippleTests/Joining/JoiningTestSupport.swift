import Foundation

@testable import Ripple

// Helpers shared by the combineLatest and zip suites. Tuples are not Equatable, so a joined publisher's
// tuples are flattened into `[Int]` before they reach a `TestSubscriber`.

/// Forwards a joined publisher's tuples to a `TestSubscriber<[Int], TestError>` as arrays; the
/// subscription passes through untouched, so its description shows.
struct JoiningArraySubscriber<Input>: Subscriber {
    typealias Failure = TestError

    let combineIdentifier = CombineIdentifier()
    let target: TestSubscriber<[Int], TestError>
    let flatten: (Input) -> [Int]

    func receive(subscription: any Subscription) { target.receive(subscription: subscription) }
    func receive(_ input: Input) -> Subscribers.Demand { target.receive(flatten(input)) }
    func receive(completion: Subscribers.Completion<TestError>) { target.receive(completion: completion) }
}

extension Publisher where Output == (Int, Int), Failure == TestError {
    /// Subscribes `target`, flattening each pair.
    func subscribeJoined(_ target: TestSubscriber<[Int], TestError>) {
        subscribe(JoiningArraySubscriber(target: target) { [$0.0, $0.1] })
    }
}

extension Publisher where Output == (Int, Int, Int), Failure == TestError {
    /// Subscribes `target`, flattening each triple.
    func subscribeJoined(_ target: TestSubscriber<[Int], TestError>) {
        subscribe(JoiningArraySubscriber(target: target) { [$0.0, $0.1, $0.2] })
    }
}

extension Publisher where Output == (Int, Int, Int, Int), Failure == TestError {
    /// Subscribes `target`, flattening each quadruple.
    func subscribeJoined(_ target: TestSubscriber<[Int], TestError>) {
        subscribe(JoiningArraySubscriber(target: target) { [$0.0, $0.1, $0.2, $0.3] })
    }
}

typealias JoiningSubscriber = TestSubscriber<[Int], TestError>
typealias JoiningUpstream = TestPublisher<Int, TestError>

/// A synchronous publisher that honours demand, like Combine's `Publishers.Sequence`: it emits `values`
/// as they are requested (re-entrant requests only add demand, so it never recurses), then finishes right
/// after the last value (at the first request when there is none). It records every request.
final class JoiningSequencePublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = TestError

    let values: [Int]
    private let lock = Lock()
    private var recordedRequests: [Subscribers.Demand] = []

    init(_ values: [Int]) { self.values = values }

    var requests: [Subscribers.Demand] { lock.withLock { recordedRequests } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        subscriber.receive(subscription: Emitter(publisher: self, downstream: AnySubscriber(subscriber)))
    }

    fileprivate func record(_ demand: Subscribers.Demand) {
        lock.withLock { recordedRequests.append(demand) }
    }

    private final class Emitter: Subscription, @unchecked Sendable {
        private let lock = Lock()
        private let publisher: JoiningSequencePublisher
        private var downstream: AnySubscriber<Int, TestError>?
        private var index = 0
        private var demand = Subscribers.Demand.none
        private var isEmitting = false

        init(publisher: JoiningSequencePublisher, downstream: AnySubscriber<Int, TestError>) {
            self.publisher = publisher
            self.downstream = downstream
        }

        func request(_ demand: Subscribers.Demand) {
            publisher.record(demand)
            let shouldEmit = lock.withLock { () -> Bool in
                self.demand += demand
                guard !isEmitting else { return false }
                isEmitting = true
                return true
            }
            guard shouldEmit else { return }
            while true {
                enum Step {
                    case value(AnySubscriber<Int, TestError>, Int)
                    case finish(AnySubscriber<Int, TestError>)
                    case stop
                }
                let step = lock.withLock { () -> Step in
                    guard let downstream else {
                        isEmitting = false
                        return .stop
                    }
                    if index == publisher.values.count {
                        self.downstream = nil
                        isEmitting = false
                        return .finish(downstream)
                    }
                    guard self.demand != .none else {
                        isEmitting = false
                        return .stop
                    }
                    self.demand -= 1
                    index += 1
                    return .value(downstream, publisher.values[index - 1])
                }
                switch step {
                case .value(let target, let value):
                    let more = target.receive(value)
                    lock.withLock { self.demand += more }
                case .finish(let target):
                    target.receive(completion: .finished)
                    return
                case .stop:
                    return
                }
            }
        }

        func cancel() {
            lock.withLock { downstream = nil }
        }
    }
}

/// A publisher whose subscription arrives only when the test calls ``attach()``; it records calls in
/// `recorder`, a `TestPublisher` whose subscription object it hands out.
final class JoiningLatePublisher: Publisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = TestError

    let recorder = JoiningUpstream()
    private let lock = Lock()
    private var subscriber: AnySubscriber<Int, TestError>?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        lock.withLock { self.subscriber = AnySubscriber(subscriber) }
    }

    /// `String(describing:)` of the subscriber attached, if any.
    var subscriberDescription: String? {
        lock.withLock { subscriber.map { String(describing: $0) } }
    }

    /// Hands the subscriber a recording subscription.
    func attach() {
        let target = lock.withLock { subscriber }
        target?.receive(subscription: JoiningUpstream.TestSubscription(publisher: recorder))
    }

    @discardableResult
    func send(_ value: Int) -> Subscribers.Demand {
        lock.withLock { subscriber }?.receive(value) ?? .none
    }
}

/// A publisher that completes as soon as it is subscribed to, before any request, as Combine's `Empty`
/// and `Fail` do.
struct JoiningImmediatePublisher: Publisher {
    typealias Output = Int
    typealias Failure = TestError

    let completion: Subscribers.Completion<TestError>

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: completion)
    }
}

/// An equatable publisher, to check the joined publishers' `Equatable` conformances.
struct JoiningEquatablePublisher: Publisher, Equatable {
    typealias Output = Int
    typealias Failure = TestError

    let tag: Int

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .finished)
    }
}

/// Runs `body` for every index in `0..<iterations` on several threads at once.
func joiningConcurrently(_ iterations: Int, _ body: @Sendable (Int) -> Void) {
    DispatchQueue.concurrentPerform(iterations: iterations, execute: body)
}

/// A subscriber that requests everything, keeps its subscription until the completion, or cancels and
/// drops it after `cancelAfter` values: once it lets go, nothing else should keep it alive.
final class JoiningReleasingSubscriber<Input>: Subscriber, @unchecked Sendable {
    typealias Failure = TestError

    private let cancelAfter: Int?
    private var subscription: (any Subscription)?
    private(set) var count = 0
    private(set) var completed = false

    init(cancelAfter: Int? = nil) { self.cancelAfter = cancelAfter }

    func receive(subscription: any Subscription) {
        self.subscription = subscription
        subscription.request(.unlimited)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        count += 1
        if count == cancelAfter {
            subscription?.cancel()
            subscription = nil
        }
        return .none
    }

    func receive(completion: Subscribers.Completion<TestError>) {
        completed = true
        subscription = nil
    }
}
