/// Something a timer hands its ticks to: the subscription of one subscriber to a timer publisher.
internal protocol TimerTickTarget<Time>: AnyObject {
    associatedtype Time
    /// Delivers a tick at `time` if the subscriber has demand (a tick without demand is dropped).
    func tick(_ time: Time)
}

/// The subscription one subscriber holds to ``Publishers/Every`` or ``Publishers/TimerPublisher``.
///
/// Each tick reaches the subscriber only if it has demand; otherwise the tick is dropped (as Combine's
/// `Timer` publisher does). Ticks never overlap or nest, whichever thread the timer fires on.
/// Cancelling stops the subscription's own timer or detaches it from its publisher (its *stopper*).
internal final class TimerTickSubscription<Downstream: Subscriber>: TimerTickTarget, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Failure == Never {
    typealias Time = Downstream.Input

    private let name: String
    /// The subscriber, until the subscription is cancelled (then released, breaking the
    /// subscriber ⇄ subscription cycle as Combine does). Read and cleared under the lock.
    private nonisolated(unsafe) var downstream: Downstream?
    private let lock = Lock()
    private nonisolated(unsafe) var isActive = true
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    private nonisolated(unsafe) var stopper: (any Cancellable)?
    private nonisolated(unsafe) var ticks = SerialSignalQueue<Time>()

    init(downstream: Downstream, name: String) {
        self.name = name
        self.downstream = downstream
    }

    /// The publisher's name.
    var description: String { name }

    var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

    var playgroundDescription: Any { description }

    /// Whether the subscription has not been cancelled.
    var isSubscribed: Bool { lock.withLock { isActive } }

    /// Keeps `stopper` to cancel with the subscription; cancels it at once if the subscription is
    /// already cancelled.
    func attach(_ stopper: any Cancellable) {
        let accepted = lock.withLock { () -> Bool in
            guard isActive else { return false }
            self.stopper = stopper
            return true
        }
        if !accepted { stopper.cancel() }
    }

    func tick(_ time: Time) {
        let first = lock.withLock { () -> (Time, Downstream)? in
            guard isActive, demand > 0, let downstream else { return nil }
            demand -= 1
            return ticks.offer(time).map { ($0, downstream) }
        }
        guard let (firstTime, downstream) = first else { return }
        var time = firstTime
        while true {
            let more = downstream.receive(time)
            let next = lock.withLock { () -> Time? in
                if isActive, more > 0 { demand += more }
                return ticks.next()
            }
            guard let next else { return }
            time = next
        }
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock {
            if isActive { self.demand += demand }
        }
    }

    func cancel() {
        // The subscriber is released after unlocking: releasing it may run arbitrary deinit code.
        let (stopper, released) = lock.withLock { () -> ((any Cancellable)?, Downstream?) in
            guard isActive else { return (nil, nil) }
            isActive = false
            ticks.discardPending()
            let taken = (self.stopper, downstream)
            self.stopper = nil
            downstream = nil
            return taken
        }
        withExtendedLifetime(released) { stopper?.cancel() }
    }
}
