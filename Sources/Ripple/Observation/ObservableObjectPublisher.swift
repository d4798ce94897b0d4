/// The publisher an ``ObservableObject`` sends on just before it changes: a signal with no value.
///
/// A subscriber starts receiving signals once it has requested anything; from then on it receives every
/// ``send()``, however much it requested (as in Combine: the signal carries nothing to lose, and a view
/// that asked once stays informed). A subscriber that has not requested yet misses the signals sent
/// meanwhile. It never completes.
///
/// ``send()`` is safe from any thread, concurrently and re-entrantly; the signals to one subscriber never
/// overlap. Its subscriptions describe themselves as `"ObservableObjectPublisher"`.
public final class ObservableObjectPublisher: Publisher, Sendable {
    /// A signal carries no value.
    public typealias Output = Void
    /// It never fails.
    public typealias Failure = Never

    private let lock = Lock()
    /// The subscriptions not cancelled yet, in the order they attached.
    private nonisolated(unsafe) var conduits: [ObservableObjectConduit] = []

    /// Creates a publisher with no subscribers.
    public init() {}

    /// Attaches `subscriber`; it receives the signals sent after it first requests.
    ///
    /// - Parameter subscriber: the subscriber to attach.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Void, S.Failure == Never {
        let conduit = ObservableObjectSubscription(parent: self, downstream: subscriber)
        lock.withLock { conduits.append(conduit) }
        subscriber.receive(subscription: conduit)
    }

    /// Signals every subscriber that has requested anything that the object is about to change.
    public func send() {
        let conduits = lock.withLock { self.conduits }
        for conduit in conduits {
            conduit.signal()
        }
    }

    /// Forgets `conduit` (it was cancelled).
    fileprivate func remove(_ conduit: ObservableObjectConduit) {
        let removed: ObservableObjectConduit? = lock.withLock {
            guard let index = conduits.firstIndex(where: { $0 === conduit }) else { return nil }
            return conduits.remove(at: index)
        }
        _ = removed
    }
}

/// The part of a subscription that ``ObservableObjectPublisher`` sees, independent of the subscriber's type.
private class ObservableObjectConduit: @unchecked Sendable {
    /// Delivers one signal if the subscriber has requested anything.
    func signal() {}
}

/// One subscriber's subscription to an ``ObservableObjectPublisher``.
///
/// Signals that arrive while one is being delivered (from another thread, or re-entrantly from the
/// subscriber) are counted and delivered by the thread already delivering, one after another, so that
/// they never overlap and a re-entrant `send()` does not grow the stack.
private final class ObservableObjectSubscription<Downstream: Subscriber>: ObservableObjectConduit, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
where Downstream.Input == Void, Downstream.Failure == Never {
    /// Not a ``SubscriptionLifecycle``: the publisher's side of one downstream subscription, holding no upstream.
    private enum Phase {
        /// Attached; nothing requested yet, so signals are missed.
        case waitingForDemand
        /// Requested: every signal is delivered.
        case active
        /// Cancelled.
        case cancelled
    }

    private let lock = Lock()
    private weak var parent: ObservableObjectPublisher?
    /// The subscriber, until the subscription is cancelled (then released, breaking the subscriber ⇄
    /// subscription cycle).
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var phase = Phase.waitingForDemand
    private nonisolated(unsafe) var isDelivering = false
    /// Signals that arrived while one was being delivered.
    private nonisolated(unsafe) var pendingSignals = 0

    init(parent: ObservableObjectPublisher, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    var description: String { "ObservableObjectPublisher" }

    /// The subscriber, as in Combine.
    var customMirror: Mirror {
        let downstream = lock.withLock { self.downstream }
        return Mirror(self, children: [("downstream", downstream as Any)])
    }

    var playgroundDescription: Any { description }

    override func signal() {
        let target = lock.withLock { () -> Downstream? in
            guard phase == .active, let downstream else { return nil }
            if isDelivering {
                pendingSignals += 1
                return nil
            }
            isDelivering = true
            return downstream
        }
        guard let target else { return }
        while true {
            _ = target.receive(())
            let more = lock.withLock { () -> Bool in
                guard phase == .active, pendingSignals > 0 else {
                    isDelivering = false
                    pendingSignals = 0
                    return false
                }
                pendingSignals -= 1
                return true
            }
            guard more else { return }
        }
    }

    /// Starts the signals; the amount does not matter (every later signal is delivered).
    func request(_ demand: Subscribers.Demand) {
        lock.withLock {
            if phase == .waitingForDemand { phase = .active }
        }
    }

    /// Stops the signals and detaches from the publisher.
    func cancel() {
        let released = lock.withLock { () -> Downstream? in
            guard phase != .cancelled else { return nil }
            phase = .cancelled
            let released = downstream
            downstream = nil
            return released
        }
        guard released != nil else { return }
        // The subscriber is released outside the lock: releasing it may run arbitrary deinit code.
        withExtendedLifetime(released) { parent?.remove(self) }
    }
}
