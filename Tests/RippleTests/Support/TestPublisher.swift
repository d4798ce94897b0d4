@testable import Ripple

/// A hand-driven publisher for testing operators: it records every `request` and `cancel` its
/// subscriptions receive, and ``send(_:)`` delivers a value whether or not it was demanded (so a test
/// can check what an operator does with it).
final class TestPublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// What a subscription was asked to do, in order.
    enum Call: Equatable, CustomStringConvertible {
        case request(Subscribers.Demand)
        case cancel

        var description: String {
            switch self {
            case .request(let demand): "request(\(demand))"
            case .cancel: "cancel"
            }
        }
    }

    /// The subscription handed to each subscriber; described as `"TestSubscription"`.
    final class TestSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        weak var publisher: TestPublisher?
        init(publisher: TestPublisher) { self.publisher = publisher }
        var description: String { "TestSubscription" }
        func request(_ demand: Subscribers.Demand) { publisher?.record(.request(demand)) }
        func cancel() { publisher?.record(.cancel) }
    }

    private let lock = Lock()
    private var recordedCalls: [Call] = []
    private var downstreams: [AnySubscriber<Output, Failure>] = []
    private var subscriptionCount = 0
    /// What to do when a subscription is requested: by default, nothing more than recording.
    private let onRequest: (@Sendable (Subscribers.Demand) -> Void)?

    init(onRequest: (@Sendable (Subscribers.Demand) -> Void)? = nil) {
        self.onRequest = onRequest
    }

    /// Every `request` and `cancel` received so far, in order, across all subscriptions.
    var calls: [Call] { lock.withLock { recordedCalls } }
    /// How many subscribers have attached.
    var subscriptions: Int { lock.withLock { subscriptionCount } }
    /// The sum of all requests so far.
    var requested: Subscribers.Demand {
        lock.withLock {
            recordedCalls.reduce(into: .none) { if case .request(let demand) = $1 { $0 += demand } }
        }
    }
    /// Whether any subscription was cancelled.
    var isCancelled: Bool { lock.withLock { recordedCalls.contains(.cancel) } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            subscriptionCount += 1
            downstreams.append(AnySubscriber(subscriber))
        }
        subscriber.receive(subscription: TestSubscription(publisher: self))
    }

    /// Delivers `value` to every subscriber; returns the last subscriber's extra demand.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        let targets = lock.withLock { downstreams }
        var demand = Subscribers.Demand.none
        for target in targets { demand = target.receive(value) }
        return demand
    }

    /// Delivers `completion` to every subscriber.
    func send(completion: Subscribers.Completion<Failure>) {
        let targets = lock.withLock { downstreams }
        for target in targets { target.receive(completion: completion) }
    }

    fileprivate func record(_ call: Call) {
        lock.withLock { recordedCalls.append(call) }
        if case .request(let demand) = call { onRequest?(demand) }
    }
}
