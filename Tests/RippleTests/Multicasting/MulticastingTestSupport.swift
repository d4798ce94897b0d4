import Synchronization

@testable import Ripple

/// A publisher that emits `values` synchronously as they are requested, then finishes: the shape of
/// Combine's sequence publisher, for seeing who attaches before a connection emits everything.
/// Every subscriber gets its own run over the values; `subscriptions` counts them.
final class MulticastingSyncPublisher: Publisher, Sendable {
    typealias Output = Int
    typealias Failure = Never

    let values: [Int]
    private let subscriptionCount = Atomic<Int>(0)

    init(_ values: [Int]) {
        self.values = values
    }

    var subscriptions: Int { subscriptionCount.load(ordering: .relaxed) }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subscriptionCount.add(1, ordering: .relaxed)
        subscriber.receive(subscription: Emitter(values: values, downstream: subscriber))
    }

    private enum EmitterStep<Downstream> {
        case value(Int, Downstream)
        case finish(Downstream)
        case stop
    }

    /// Emits on `request`, looping rather than recursing when the subscriber requests re-entrantly.
    private final class Emitter<Downstream: Subscriber>: Subscription, CustomStringConvertible
    where Downstream.Input == Int, Downstream.Failure == Never {
        private let lock = Lock()
        private nonisolated(unsafe) var remaining: ArraySlice<Int>
        private nonisolated(unsafe) var downstream: Downstream?
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        private nonisolated(unsafe) var isEmitting = false

        init(values: [Int], downstream: Downstream) {
            remaining = values[...]
            self.downstream = downstream
        }

        var description: String { "Sequence" }

        func request(_ more: Subscribers.Demand) {
            let start = lock.withLock { () -> Bool in
                demand += more
                if isEmitting { return false }
                isEmitting = true
                return true
            }
            guard start else { return }
            while true {
                let next: EmitterStep<Downstream> = lock.withLock {
                    guard let downstream else {
                        isEmitting = false
                        return .stop
                    }
                    if remaining.isEmpty {
                        self.downstream = nil
                        return .finish(downstream)
                    }
                    guard demand > 0 else {
                        isEmitting = false
                        return .stop
                    }
                    demand -= 1
                    return .value(remaining.removeFirst(), downstream)
                }
                switch next {
                case .value(let value, let downstream):
                    let extra = downstream.receive(value)
                    lock.withLock { demand += extra }
                case .finish(let downstream):
                    downstream.receive(completion: .finished)
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

/// A connectable publisher over a ``TestPublisher`` that records each `connect()` and each
/// cancellation of a connection, and the description of every subscriber attached to it.
final class MulticastingRecordingConnectable<Output, Failure: Error>: ConnectablePublisher, @unchecked Sendable {
    enum Record: Equatable, CustomStringConvertible {
        case connect
        case disconnect
        var description: String { self == .connect ? "connect" : "disconnect" }
    }

    let upstream = TestPublisher<Output, Failure>()
    private let lock = Lock()
    private var recorded: [Record] = []
    private var subscriberNames: [String] = []
    private let live = Atomic<Int>(0)
    /// Runs inside `connect()`, before it returns.
    var onConnect: (() -> Void)?

    var history: [Record] { lock.withLock { recorded } }
    var subscriberDescriptions: [String] { lock.withLock { subscriberNames } }
    /// Connections made and not yet cancelled.
    var liveConnections: Int { live.load(ordering: .relaxed) }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock { subscriberNames.append(String(describing: subscriber)) }
        upstream.subscribe(subscriber)
    }

    func connect() -> any Cancellable {
        lock.withLock { recorded.append(.connect) }
        live.add(1, ordering: .relaxed)
        onConnect?()
        return AnyCancellable { [self] in
            live.subtract(1, ordering: .relaxed)
            lock.withLock { recorded.append(.disconnect) }
        }
    }
}

/// A subject that hands each subscriber one ``MulticastingRecordingSubscription`` and keeps the
/// subscribers, so a test can drive the subscriber a ``Publishers/Multicast`` attaches to it by hand.
final class MulticastingStealingSubject: Subject, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = TestError

    let subscription = MulticastingRecordingSubscription()
    private(set) var subscribers: [AnySubscriber<Int, TestError>] = []

    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == TestError {
        subscribers.append(AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
    }

    func send(_ value: Int) {
        for subscriber in subscribers { _ = subscriber.receive(value) }
    }

    func send(completion: Subscribers.Completion<TestError>) {
        for subscriber in subscribers { subscriber.receive(completion: completion) }
    }

    func send(subscription: any Subscription) {
        subscription.request(.unlimited)
    }
}

/// A subscription that records the calls it receives.
final class MulticastingRecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    private let lock = Lock()
    private var recorded: [TestPublisher<Int, Never>.Call] = []
    var calls: [TestPublisher<Int, Never>.Call] { lock.withLock { recorded } }
    var description: String { "Recording" }
    func request(_ demand: Subscribers.Demand) { lock.withLock { recorded.append(.request(demand)) } }
    func cancel() { lock.withLock { recorded.append(.cancel) } }
}

/// Counts how many threads are inside a region at once.
final class MulticastingConcurrencyGauge: @unchecked Sendable {
    private let lock = Lock()
    private var inside = 0
    private var maximum = 0
    func enter() {
        lock.withLock {
            inside += 1
            maximum = Swift.max(maximum, inside)
        }
    }
    func leave() { lock.withLock { inside -= 1 } }
    var maximumConcurrency: Int { lock.withLock { maximum } }
}

/// Whether the values in `values`, grouped by `value / stride`, are strictly increasing in each group
/// (each sending thread's values arrive in the order it sent them).
func multicastingEachSenderInOrder(_ values: [Int], stride: Int) -> Bool {
    var last: [Int: Int] = [:]
    for value in values {
        let sender = value / stride
        if let previous = last[sender], previous >= value { return false }
        last[sender] = value
    }
    return true
}
