import RippleTestSupport
import Synchronization

@testable import Ripple

/// A synchronous publisher of fixed values and a completion, for the Sequencing tests: it honours demand
/// and trampolines (a request made while it is delivering only adds demand), as Ripple's sources must.
/// It records every request and cancellation.
struct SequencingSyncPublisher<Output, Failure: Error>: Publisher {
    let values: [Output]
    let completion: Subscribers.Completion<Failure>
    let log: SequencingCallLog

    init(_ values: [Output], completion: Subscribers.Completion<Failure> = .finished, log: SequencingCallLog = .init())
    {
        self.values = values
        self.completion = completion
        self.log = log
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        log.subscribed()
        subscriber.receive(
            subscription: Subscription(values: values, completion: completion, downstream: subscriber, log: log))
    }

    final class Subscription<Downstream: Subscriber>: Ripple.Subscription, CustomStringConvertible, @unchecked Sendable
    where Downstream.Input == Output, Downstream.Failure == Failure {
        private enum Step {
            case value(Output, Downstream)
            case complete(Downstream)
            case stop
        }

        private let lock = Lock()
        private var values: IndexingIterator<[Output]>
        private var next: Output?
        private let completion: Subscribers.Completion<Failure>
        private var downstream: Downstream?
        private var demand = Subscribers.Demand.none
        private var delivering = false
        private let log: SequencingCallLog

        init(
            values: [Output], completion: Subscribers.Completion<Failure>, downstream: Downstream,
            log: SequencingCallLog
        ) {
            self.values = values.makeIterator()
            self.next = self.values.next()
            self.completion = completion
            self.downstream = downstream
            self.log = log
        }

        var description: String { "SyncSubscription" }

        func request(_ demand: Subscribers.Demand) {
            log.record(.request(demand))
            let proceed = lock.withLock { () -> Bool in
                self.demand += demand
                if delivering { return false }
                delivering = true
                return true
            }
            guard proceed else { return }
            while true {
                let step = lock.withLock { () -> Step in
                    guard let downstream else {
                        delivering = false
                        return .stop
                    }
                    if let value = next {
                        guard self.demand > 0 else {
                            delivering = false
                            return .stop
                        }
                        self.demand -= 1
                        next = values.next()
                        return .value(value, downstream)
                    }
                    self.downstream = nil
                    delivering = false
                    return .complete(downstream)
                }
                switch step {
                case .value(let value, let downstream):
                    let more = downstream.receive(value)
                    lock.withLock { self.demand += more }
                case .complete(let downstream):
                    downstream.receive(completion: completion)
                    return
                case .stop:
                    return
                }
            }
        }

        func cancel() {
            log.record(.cancel)
            lock.withLock { downstream = nil }
        }
    }
}

/// The requests and cancellations a test publisher received, and how many subscribers it had.
final class SequencingCallLog: Sendable {
    typealias Call = TestPublisher<Int, Never>.Call
    private let state = LockedBox<(calls: [Call], subscriptions: Int)>(([], 0))

    init() {}

    var calls: [Call] { state.withLock { $0.calls } }
    var subscriptions: Int { state.withLock { $0.subscriptions } }

    func record(_ call: Call) { state.withLock { $0.calls.append(call) } }
    func subscribed() { state.withLock { $0.subscriptions += 1 } }
}

/// A hand-driven publisher like ``TestPublisher``, except that values and completions go only to the
/// latest subscriber (for operators that subscribe again, such as `retry`). It records every request and
/// cancellation, across subscriptions.
final class SequencingLatestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let lock = Lock()
    private var latest: AnySubscriber<Output, Failure>?
    let log = SequencingCallLog()
    /// Called on each subscription, after the subscriber has received its subscription.
    private let onSubscribe: (@Sendable (SequencingLatestPublisher) -> Void)?

    init(onSubscribe: (@Sendable (SequencingLatestPublisher) -> Void)? = nil) {
        self.onSubscribe = onSubscribe
    }

    var calls: [SequencingCallLog.Call] { log.calls }
    var subscriptions: Int { log.subscriptions }

    final class Link: Subscription, CustomStringConvertible, @unchecked Sendable {
        let log: SequencingCallLog
        init(log: SequencingCallLog) { self.log = log }
        var description: String { "TestSubscription" }
        func request(_ demand: Subscribers.Demand) { log.record(.request(demand)) }
        func cancel() { log.record(.cancel) }
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        log.subscribed()
        lock.withLock { latest = AnySubscriber(subscriber) }
        subscriber.receive(subscription: Link(log: log))
        onSubscribe?(self)
    }

    /// Hands the latest subscriber another subscription.
    func sendSubscription(_ subscription: any Subscription) {
        let target = lock.withLock { latest }
        target?.receive(subscription: subscription)
    }

    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        let target = lock.withLock { latest }
        return target?.receive(value) ?? .none
    }

    func send(completion: Subscribers.Completion<Failure>) {
        let target = lock.withLock { latest }
        target?.receive(completion: completion)
    }
}

/// A text stream that records what is written to it, from any thread.
final class SequencingTextStream: TextOutputStream, Sendable {
    private let state = LockedBox<[String]>([])

    init() {}

    /// Every `write` call, in order.
    var writes: [String] { state.withLock { $0 } }
    /// Everything written, split into lines.
    var lines: [String] {
        writes.joined().split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    func write(_ string: String) { state.withLock { $0.append(string) } }
}

/// A counter shared with closures in tests.
final class SequencingCounter: Sendable {
    private let value = Atomic<Int>(0)
    init() {}
    func increment() { value.add(1, ordering: .relaxed) }
    var count: Int { value.load(ordering: .relaxed) }
}

/// An equatable wrapper of `any Error`, for comparing the failures of `try` operators.
struct SequencingTryError: Error, Equatable {
    let error: any Error
    init(_ error: any Error) { self.error = error }
    static func == (lhs: SequencingTryError, rhs: SequencingTryError) -> Bool {
        String(describing: lhs.error) == String(describing: rhs.error)
    }
}

/// Re-types a publisher failing with `any Error` as failing with ``SequencingTryError`` (keeping the
/// subscription's description), so ``TestSubscriber`` can record it.
struct SequencingTryErrorAdapter<Upstream: Publisher>: Publisher where Upstream.Failure == any Error {
    typealias Output = Upstream.Output
    typealias Failure = SequencingTryError
    let upstream: Upstream

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == SequencingTryError {
        upstream.subscribe(
            AnySubscriber<Output, any Error>(
                receiveSubscription: { subscriber.receive(subscription: $0) },
                receiveValue: { subscriber.receive($0) },
                receiveCompletion: { subscriber.receive(completion: $0.mapFailure { SequencingTryError($0) }) }
            )
        )
    }
}

extension Publisher where Failure == any Error {
    func mapToSequencingTryError() -> SequencingTryErrorAdapter<Self> { SequencingTryErrorAdapter(upstream: self) }
}
