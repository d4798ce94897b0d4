@testable import Ripple

/// A subscription that records what it is asked, for handing an operator a subscription by hand.
final class RecordingSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    private let lock = Lock()
    private var recorded: [TestPublisher<Int, Never>.Call] = []

    /// Every `request` and `cancel` so far, in order.
    var calls: [TestPublisher<Int, Never>.Call] { lock.withLock { recorded } }
    var description: String { "RecordingSubscription" }

    func request(_ demand: Subscribers.Demand) { lock.withLock { recorded.append(.request(demand)) } }
    func cancel() { lock.withLock { recorded.append(.cancel) } }
}

/// A publisher that keeps its subscriber without giving it a subscription, so that a test can send the
/// signals in any order (a value or a completion before the subscription, a second subscription) and see
/// what an operator does with them.
final class LatePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    private let lock = Lock()
    private var attached: AnySubscriber<Output, Failure>?
    private var attachedAsSubscription: (any Subscription)?
    private var attachedDescription: String?
    private var attachedErased: (any Subscriber)?

    /// The subscription ``sendSubscription()`` hands over; it records the operator's requests and cancels.
    let subscription = RecordingSubscription()

    /// The operator's subscriber, as the subscription it also is (for operators whose subscriber is the
    /// subscription they hand downstream); `nil` otherwise.
    var subscriberAsSubscription: (any Subscription)? { lock.withLock { attachedAsSubscription } }
    /// The operator's subscriber.
    var subscriber: AnySubscriber<Output, Failure>? { lock.withLock { attached } }
    /// The operator's subscriber, unwrapped.
    var erased: (any Subscriber)? { lock.withLock { attachedErased } }
    /// `String(describing:)` of the operator's subscriber.
    var subscriberDescription: String? { lock.withLock { attachedDescription } }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        lock.withLock {
            attached = AnySubscriber(subscriber)
            attachedAsSubscription = subscriber as? any Subscription
            attachedDescription = String(describing: subscriber)
            attachedErased = subscriber
        }
    }

    /// Hands ``subscription`` (or `other`) to the subscriber.
    func sendSubscription(_ other: (any Subscription)? = nil) {
        lock.withLock { attached }?.receive(subscription: other ?? subscription)
    }

    /// Sends `value`; returns the demand the subscriber answers with.
    @discardableResult
    func send(_ value: Output) -> Subscribers.Demand {
        lock.withLock { attached }?.receive(value) ?? .none
    }

    /// Sends `completion`.
    func send(completion: Subscribers.Completion<Failure>) {
        lock.withLock { attached }?.receive(completion: completion)
    }
}
