import Ripple

extension EventLoop {
    /// A publisher of the readiness of `fileDescriptor` for `events`, watched with `uv_poll`.
    ///
    /// Each value is the subset of `events` that is ready, delivered on the loop thread, one per
    /// demanded value. Readiness is level-triggered: while the descriptor stays readable (you have not
    /// read what is waiting) and the subscriber has demand, the loop reports it again on each iteration;
    /// while the subscriber has no demand the loop stops watching for it. The publisher never finishes
    /// on its own; it finishes when the loop stops, and fails with ``EventLoopError/libuv(code:)`` if
    /// libuv cannot watch the descriptor (`EPERM` for a regular file, `EBADF` for a closed one).
    /// Cancelling stops the watching (on the loop thread, before `cancel()` returns); cancel before you
    /// close the descriptor.
    ///
    /// Several subscriptions to one descriptor share one `uv_poll` handle. libuv puts the descriptor
    /// in non-blocking mode.
    ///
    /// - Parameters:
    ///   - fileDescriptor: the descriptor to watch.
    ///   - events: the conditions to watch for.
    /// - Returns: the publisher of its readiness.
    public func poll(_ fileDescriptor: Int32, for events: PollEvents) -> PollPublisher {
        PollPublisher(loop: self, fileDescriptor: fileDescriptor, events: events)
    }

    /// The publisher ``EventLoop/poll(_:for:)`` returns: readiness events of one file descriptor.
    public struct PollPublisher: Publisher, Sendable {
        /// The ready subset of ``events``.
        public typealias Output = PollEvents
        /// Why the descriptor could not be watched.
        public typealias Failure = EventLoopError

        /// The loop that watches the descriptor and delivers its events.
        public let loop: EventLoop
        /// The descriptor watched.
        public let fileDescriptor: Int32
        /// The events watched for.
        public let events: PollEvents

        /// Subscribes `subscriber`: it receives its subscription on this thread, then the events on the
        /// loop thread as it demands them.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == PollEvents, S.Failure == EventLoopError {
            let subscription = PollSubscription(
                loop: loop,
                fileDescriptor: fileDescriptor,
                interest: events,
                downstream: subscriber
            )
            subscriber.receive(subscription: subscription)
            subscription.attach()
        }
    }
}

/// One subscriber's subscription to a ``EventLoop/PollPublisher``.
///
/// `request` and `cancel` come from any thread; the loop thread registers the subscription with the
/// descriptor's ``FileDescriptorPoller`` (only after `receive(subscription:)` has returned, so no value
/// can overtake it) and delivers values and the completion.
///
/// Not generic: the subscriber is held behind one class reference (``PollDownstream``). The subscription is
/// made by a generic function the modules that poll do not specialise, so a generic subscription's
/// per-readiness path looked up the metadata of its `Downstream?` on every delivery.
private final class PollSubscription: Subscription, PollClient, CustomStringConvertible, Sendable {
    let loop: EventLoop
    let fileDescriptor: Int32
    let interest: EventLoop.PollEvents

    private let lock = Lock()
    /// The subscriber, until the subscription ends.
    private nonisolated(unsafe) var downstream: PollDownstream?
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// Whether the loop thread has registered the subscription with its poller.
    private nonisolated(unsafe) var attached = false

    init<Downstream: Subscriber>(
        loop: EventLoop, fileDescriptor: Int32, interest: EventLoop.PollEvents, downstream: Downstream
    ) where Downstream.Input == EventLoop.PollEvents, Downstream.Failure == EventLoopError {
        self.loop = loop
        self.fileDescriptor = fileDescriptor
        self.interest = interest
        self.downstream = TypedPollDownstream(downstream)
    }

    var description: String { "Poll" }

    /// Asks the loop thread to register the subscription; finishes it at once if the loop has stopped.
    func attach() {
        let accepted = loop.enqueue(ScheduledAction { [self] in loop.attach(self) })
        if !accepted {
            finish(.finished)
        }
    }

    func request(_ additional: Subscribers.Demand) {
        APIViolation.checkDemand(additional)
        let mustWatch = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            let wasZero = demand == .none
            demand += additional
            return wasZero && attached
        }
        if mustWatch {
            postReconcile()
        }
    }

    func cancel() {
        let (ended, wasAttached) = lock.withLock { () -> (PollDownstream?, Bool) in
            let ended = downstream
            downstream = nil
            demand = .none
            return (ended, attached)
        }
        guard ended != nil else { return }
        if wasAttached {
            // On the loop thread the watching stops before `cancel` returns: the caller may close the
            // descriptor next (libdbus does, right after removing its watch), and libuv aborts when it
            // later re-registers or modifies the watch of a descriptor that was closed under it.
            let descriptor = fileDescriptor
            loop.runOnLoopThread { [loop] in loop.reconcilePoller(for: descriptor) }
        }
        // The subscriber is released here, outside the lock.
    }

    private func postReconcile() {
        let descriptor = fileDescriptor
        loop.enqueue(ScheduledAction { [loop] in loop.reconcilePoller(for: descriptor) })
    }

    // MARK: PollClient (loop thread, except `finish` for a stopped loop)

    func markAttached() -> Bool {
        lock.withLock {
            guard downstream != nil else { return false }
            attached = true
            return true
        }
    }

    func currentInterest() -> EventLoop.PollEvents? {
        lock.withLock {
            guard downstream != nil else { return nil }
            return demand > .none ? interest : []
        }
    }

    func deliver(_ ready: EventLoop.PollEvents) -> Bool {
        let events = ready.intersection(interest)
        guard !events.isEmpty else { return false }
        let (receiver, unlimited) = lock.withLock { () -> (PollDownstream?, Bool) in
            guard let downstream, demand > .none else { return (nil, false) }
            demand -= 1
            return (downstream, demand == .unlimited)
        }
        // No demand: the poller still watches for it (a request from another thread is on its way).
        guard let receiver else { return true }
        let more = receiver.receive(events)
        // Unlimited demand stays unlimited whatever the subscriber adds: nothing to record, no second lock
        // (the common case: a reader that takes every readiness).
        if unlimited { return false }
        return lock.withLock {
            guard downstream != nil else { return false }
            demand += more
            return demand == .none
        }
    }

    func finish(_ completion: Subscribers.Completion<EventLoopError>) {
        let ended = lock.withLock { () -> PollDownstream? in
            let ended = downstream
            downstream = nil
            demand = .none
            return ended
        }
        ended?.receive(completion: completion)
    }
}

/// A poll subscription's subscriber behind one class reference (the subscriber itself is in the one
/// subclass, ``TypedPollDownstream``).
private class PollDownstream {
    func receive(_ events: EventLoop.PollEvents) -> Subscribers.Demand { .none }

    func receive(completion: Subscribers.Completion<EventLoopError>) {}
}

/// The subscriber `S` of a poll subscription.
private final class TypedPollDownstream<S: Subscriber>: PollDownstream
where S.Input == EventLoop.PollEvents, S.Failure == EventLoopError {
    private let subscriber: S

    init(_ subscriber: S) {
        self.subscriber = subscriber
    }

    override func receive(_ events: EventLoop.PollEvents) -> Subscribers.Demand {
        subscriber.receive(events)
    }

    override func receive(completion: Subscribers.Completion<EventLoopError>) {
        subscriber.receive(completion: completion)
    }
}
