import Ripple

/// One subscriber's end of a characteristic's notifications: Ripple's buffered subscription, with the
/// listener's ``NotificationBuffering`` and ``NotificationStatistics``, delivering on the central's loop
/// thread. The central offers notifications on the loop thread; the subscriber requests from any.
typealias NotificationListener = BufferedSubscription<AnySubscriber<[UInt8], BluetoothError>>

extension BufferedSubscription where Downstream == AnySubscriber<[UInt8], BluetoothError> {
    /// A listener for `downstream`.
    ///
    /// - Parameters:
    ///   - downstream: the subscriber.
    ///   - buffering: its buffer and policy.
    ///   - statistics: where it is counted.
    ///   - context: where notifications are delivered (the central's loop thread).
    ///   - onEnd: runs once when the stream ends (cancelled, completed or overflowed).
    convenience init(
        listening downstream: AnySubscriber<[UInt8], BluetoothError>, buffering: NotificationBuffering,
        statistics: NotificationStatistics, context: DeliveryContext, onEnd: @escaping () -> Void
    ) {
        self.init(
            downstream: downstream, capacity: buffering.capacity,
            overflow: buffering.overflowRule { EventBuffering.overflowFailure(of: "notifications", capacity: $0) },
            counters: statistics.counters,
            context: context, description: "NotificationListener", onEnd: onEnd)
    }
}
