import Ripple

/// One subscriber's end of a characteristic's notifications: Ripple's buffered subscription, with the
/// listener's ``NotificationBuffering`` and ``NotificationStatistics``, delivering on the central's loop
/// thread. The central offers notifications on the loop thread; the subscriber requests from any.
typealias NotificationListener = BufferedSubscription<NotificationSubscriber>

extension BufferedSubscription where Downstream == NotificationSubscriber {
    /// A listener for `downstream`.
    ///
    /// - Parameters:
    ///   - downstream: the subscriber.
    ///   - buffering: its buffer and policy.
    ///   - statistics: where it is counted.
    ///   - context: where notifications are delivered (the central's loop thread).
    ///   - onEnd: runs once when the stream ends (cancelled, completed or overflowed).
    convenience init<S: Subscriber>(
        listening downstream: S, buffering: NotificationBuffering,
        statistics: NotificationStatistics, context: DeliveryContext, onEnd: @escaping () -> Void
    ) where S.Input == [UInt8], S.Failure == BluetoothError {
        self.init(
            downstream: TypedNotificationSubscriber(downstream), capacity: buffering.capacity,
            overflow: buffering.overflowRule { EventBuffering.overflowFailure(of: "notifications", capacity: $0) },
            counters: statistics.counters,
            context: context, description: "NotificationListener", onEnd: onEnd)
    }
}

/// A listener's subscriber behind one reference (the subscriber itself is in the one subclass,
/// ``TypedNotificationSubscriber``).
///
/// A listener copies its subscriber out of its lock for each value it hands on. `AnySubscriber` is five
/// closures: five retains and five releases per notification; this is one of each, and a call through
/// the class's table instead of a closure.
class NotificationSubscriber: Subscriber {
    typealias Input = [UInt8]
    typealias Failure = BluetoothError

    let combineIdentifier: CombineIdentifier

    fileprivate init(combineIdentifier: CombineIdentifier) {
        self.combineIdentifier = combineIdentifier
    }

    func receive(subscription: any Subscription) {}

    func receive(_ input: [UInt8]) -> Subscribers.Demand { .none }

    func receive(completion: Subscribers.Completion<BluetoothError>) {}
}

/// The subscriber `S` of a listener.
private final class TypedNotificationSubscriber<S: Subscriber>: NotificationSubscriber
where S.Input == [UInt8], S.Failure == BluetoothError {
    private let subscriber: S

    init(_ subscriber: S) {
        self.subscriber = subscriber
        super.init(combineIdentifier: subscriber.combineIdentifier)
    }

    override func receive(subscription: any Subscription) {
        subscriber.receive(subscription: subscription)
    }

    override func receive(_ input: [UInt8]) -> Subscribers.Demand {
        subscriber.receive(input)
    }

    override func receive(completion: Subscribers.Completion<BluetoothError>) {
        subscriber.receive(completion: completion)
    }
}
