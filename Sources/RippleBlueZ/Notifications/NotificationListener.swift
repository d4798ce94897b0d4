import Ripple

/// One subscriber's end of a characteristic's notifications: a bounded buffer with a policy, and the
/// subscriber's demand. The central pushes on the loop thread; the subscriber requests from any.
final class NotificationListener: Subscription, Sendable {
    let id: Int
    private let buffering: NotificationBuffering
    let statistics: NotificationStatistics
    private let onCancel: @Sendable (Int) -> Void

    private let lock = Lock()
    nonisolated(unsafe) private var downstream: AnySubscriber<[UInt8], BluetoothError>?
    nonisolated(unsafe) private var buffer = RingBuffer<[UInt8]>()
    nonisolated(unsafe) private var demand = Subscribers.Demand.none
    nonisolated(unsafe) private var draining = false
    nonisolated(unsafe) private var completion: Subscribers.Completion<BluetoothError>?

    init(
        id: Int, downstream: AnySubscriber<[UInt8], BluetoothError>, buffering: NotificationBuffering,
        statistics: NotificationStatistics, onCancel: @escaping @Sendable (Int) -> Void
    ) {
        self.id = id
        self.downstream = downstream
        self.buffering = buffering
        self.statistics = statistics
        self.onCancel = onCancel
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    /// A notification for the subscriber. Counted as received only while the stream is live, so that
    /// received = delivered + dropped + waiting.
    func push(_ value: [UInt8]) {
        let (overflow, dropped) = lock.withLock { () -> (Bool, Bool) in
            guard downstream != nil, completion == nil else { return (false, false) }
            statistics.countReceived()
            if buffer.count >= buffering.capacity {
                switch buffering.policy {
                case .dropOldest:
                    _ = buffer.popFirst()
                    statistics.countDropped()
                    buffer.append(value)
                    return (false, true)
                case .dropNewest:
                    statistics.countDropped()
                    return (false, true)
                case .failStream:
                    // The failure goes out at once, even to a subscriber that demands nothing: what was
                    // waiting is dropped with the arriving notification.
                    statistics.countDropped(buffer.count + 1)
                    buffer.removeAll()
                    completion = .failure(
                        BluetoothError(
                            .bufferOverflow,
                            "a listener fell \(buffering.capacity) notifications behind its subscriber's demand"))
                    return (true, true)
                }
            }
            buffer.append(value)
            return (false, false)
        }
        if dropped { statistics.reportDrops() }
        if overflow { onCancel(id) }
        drain()
    }

    /// A notification for the subscriber: straight to it when it has demand and nothing is waiting or
    /// being delivered (one lock, no buffering: the common case), else as ``push(_:)``.
    func deliver(_ value: [UInt8]) {
        let direct = lock.withLock { () -> AnySubscriber<[UInt8], BluetoothError>? in
            guard let downstream, completion == nil, !draining, buffer.isEmpty, demand > .none else { return nil }
            statistics.countReceived()
            demand -= 1
            draining = true
            return downstream
        }
        guard let direct else {
            push(value)
            return
        }
        statistics.countDelivered()
        let more = direct.receive(value)
        lock.withLock {
            demand += more
            draining = false
        }
        // What arrived meanwhile (a request, a completion, a value pushed from another thread) is handed on.
        drain()
    }

    /// Ends the stream after the waiting notifications.
    func finish(_ end: Subscribers.Completion<BluetoothError>) {
        lock.withLock { if completion == nil { completion = end } }
        drain()
    }

    func request(_ additional: Subscribers.Demand) {
        lock.withLock { demand += additional }
        drain()
    }

    func cancel() {
        let wasLive = lock.withLock { () -> Bool in
            defer {
                downstream = nil
                buffer.removeAll()
            }
            return downstream != nil
        }
        if wasLive { onCancel(id) }
    }

    /// Delivers what demand allows, one at a time, never re-entering the subscriber.
    private func drain() {
        while true {
            enum Step {
                case value([UInt8], AnySubscriber<[UInt8], BluetoothError>)
                case end(Subscribers.Completion<BluetoothError>, AnySubscriber<[UInt8], BluetoothError>)
            }
            let step = lock.withLock { () -> Step? in
                guard !draining, let downstream else { return nil }
                if demand > .none, let value = buffer.popFirst() {
                    demand -= 1
                    draining = true
                    return .value(value, downstream)
                }
                if buffer.isEmpty, let completion {
                    self.downstream = nil
                    return .end(completion, downstream)
                }
                return nil
            }
            switch step {
            case nil:
                return
            case .value(let value, let subscriber)?:
                statistics.countDelivered()
                let more = subscriber.receive(value)
                lock.withLock {
                    demand += more
                    draining = false
                }
            case .end(let completion, let subscriber)?:
                subscriber.receive(completion: completion)
                return
            }
        }
    }
}
