extension Publishers {
    /// A publisher that republishes the elements of the most recent publisher its upstream emitted.
    ///
    /// The upstream is asked for `.unlimited` publishers. When a new one arrives, the previous one is
    /// cancelled and the new one is subscribed and asked for the downstream's outstanding demand; later
    /// downstream requests go to whichever publisher is current. It finishes once the upstream finished
    /// and the current publisher (if any) finished; it fails with the first failure of the upstream or
    /// of the current publisher, cancelling the other.
    public struct SwitchToLatest<P: Publisher, Upstream: Publisher>: Publisher
    where P == Upstream.Output, P.Failure == Upstream.Failure {
        /// The elements of the inner publishers.
        public typealias Output = P.Output
        /// The upstream's failure, which is also the inner publishers' failure.
        public typealias Failure = P.Failure

        /// The publisher of publishers.
        public let upstream: Upstream

        /// Creates a publisher that republishes the elements of `upstream`'s most recent publisher.
        ///
        /// - Parameter upstream: The publisher of publishers.
        @inlinable public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Sends the subscription (`"SwitchToLatest"`) to `subscriber`, then subscribes to the upstream.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let switcher = Switcher(downstream: subscriber)
            subscriber.receive(subscription: switcher)
            upstream.subscribe(switcher)
        }
    }
}

extension Publishers.SwitchToLatest {
    /// The subscriber to the upstream and the subscription handed downstream.
    ///
    /// Values of the current inner publisher go downstream one at a time: one that arrives while
    /// another is being delivered (from a previous inner publisher on another thread, or re-entrantly)
    /// is queued — its demand already counted — and delivered by the delivering thread, which then asks
    /// the current inner publisher for whatever extra demand the downstream returned.
    @usableFromInline
    final class Switcher<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == P.Output, Downstream.Failure == P.Failure {
        @usableFromInline typealias Input = P
        @usableFromInline typealias Failure = P.Failure

        /// Where the downstream side stands. Not a ``SubscriptionLifecycle``: the switcher holds two upstream
        /// subscriptions (the outer publisher's and the current inner one's) that change over its life, and
        /// this is the state of the one downstream, which needs a state of its own (a completion decided while
        /// a value is being delivered).
        @usableFromInline enum Status {
            case active
            /// A completion was decided while a value was being delivered; the delivering thread
            /// hands it downstream after the queued values.
            case completing(Subscribers.Completion<Failure>)
            case closed
        }

        @usableFromInline enum Step {
            case deliver(P.Output)
            case complete(Subscribers.Completion<Failure>)
            case idle
        }

        @usableFromInline let lock = Lock()
        @usableFromInline let downstream: Downstream

        // Guarded by `lock`.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var status = Status.active
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var upstream: (any Subscription)?
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var upstreamAttached = false
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var upstreamFinished = false
        /// The subscriber to the latest inner publisher, until that publisher completes.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var current: Side?
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var currentSubscription: (any Subscription)?
        /// The latest inner publisher's subscriber, once that publisher has finished while the stream goes
        /// on (`current` is then `nil`): as in Combine, a new subscription it receives makes it current again.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var finishedLatest: ObjectIdentifier?
        /// Outstanding downstream demand, minus the values queued for delivery.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var demand = Subscribers.Demand.none
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isDelivering = false
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var queue = RingBuffer<P.Output>()

        @inlinable init(downstream: Downstream) {
            self.downstream = downstream
        }

        @usableFromInline var description: String { "SwitchToLatest" }

        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }

        @usableFromInline var playgroundDescription: Any { description }

        // MARK: Upstream

        @inlinable func receive(subscription: any Subscription) {
            let accepted: Bool = lock.withLock {
                guard case .active = status, !upstreamAttached else { return false }
                upstreamAttached = true
                upstream = subscription
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Cancels the current inner publisher and subscribes to `publisher`.
        @inlinable func receive(_ publisher: P) -> Subscribers.Demand {
            let side = Side(parent: self)
            let (accepted, previous): (Bool, (any Subscription)?) = lock.withLock {
                guard case .active = status, !upstreamFinished else { return (false, nil) }
                let previous = currentSubscription
                currentSubscription = nil
                current = side
                finishedLatest = nil
                return (true, previous)
            }
            guard accepted else { return .none }
            previous?.cancel()
            publisher.subscribe(side)
            return .none
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            let outcome: (step: Step, inner: (any Subscription)?) = lock.withLock {
                guard case .active = status, !upstreamFinished else { return (.idle, nil) }
                upstreamFinished = true
                upstream = nil
                switch completion {
                case .finished:
                    guard current == nil else { return (.idle, nil) }
                    return (complete(with: .finished), nil)
                case .failure:
                    let inner = currentSubscription
                    current = nil
                    currentSubscription = nil
                    return (complete(with: completion), inner)
                }
            }
            outcome.inner?.cancel()
            run(outcome.step)
        }

        // MARK: Inner publishers

        @inlinable func side(_ side: Side, received subscription: any Subscription) {
            let demand: Subscribers.Demand? = lock.withLock {
                guard case .active = status else { return nil }
                if current === side, !side.isSubscribed {
                    side.isSubscribed = true
                } else if current == nil, finishedLatest == ObjectIdentifier(side) {
                    // As in Combine, the latest inner publisher, having finished, is taken again when it
                    // sends a new subscription (which only a broken publisher does).
                    current = side
                    finishedLatest = nil
                } else {
                    return nil
                }
                currentSubscription = subscription
                return self.demand
            }
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand > 0 {
                subscription.request(demand)
            }
        }

        /// Delivers a value of the current inner publisher; as in Combine, one beyond the downstream demand
        /// traps.
        @inlinable func side(_ side: Side, received value: P.Output) -> Subscribers.Demand {
            let deliverNow: Bool = lock.withLock {
                guard case .active = status, current === side else { return false }
                if demand == .none { APIViolation.unrequestedValue() }
                demand -= 1
                if isDelivering {
                    queue.append(value)
                    return false
                }
                isDelivering = true
                return true
            }
            guard deliverNow else { return .none }
            let more = downstream.receive(value)
            // The common case (still active, nothing queued meanwhile) gives up the delivering role in this
            // critical section; otherwise the delivery loop takes over.
            let (isIdle, stillCurrent): (Bool, Bool) = lock.withLock {
                demand += more
                let stillCurrent = current === side
                guard case .active = status, queue.isEmpty else { return (false, stillCurrent) }
                isDelivering = false
                return (true, stillCurrent)
            }
            if more > 0, !stillCurrent {
                // Rare: the value came from a publisher that has been replaced; the extra demand goes to
                // the current one.
                let redirect: (any Subscription)? = lock.withLock { currentSubscription }
                redirect?.request(more)
            }
            if !isIdle { run(lock.withLock { nextStep() }) }
            return stillCurrent ? more : .none
        }

        @inlinable func side(_ side: Side, received completion: Subscribers.Completion<Failure>) {
            let outcome: (step: Step, upstream: (any Subscription)?) = lock.withLock {
                guard case .active = status, current === side else { return (.idle, nil) }
                // As in Combine: the current inner publisher may not complete before its subscription.
                if !side.isSubscribed { APIViolation.unexpectedCompletion() }
                current = nil
                currentSubscription = nil
                switch completion {
                case .finished:
                    guard upstreamFinished else {
                        finishedLatest = ObjectIdentifier(side)
                        return (.idle, nil)
                    }
                    return (complete(with: .finished), nil)
                case .failure:
                    let upstream = self.upstream
                    self.upstream = nil
                    return (complete(with: completion), upstream)
                }
            }
            outcome.upstream?.cancel()
            run(outcome.step)
        }

        // MARK: Subscription

        /// Adds to the outstanding demand and forwards the request to the current inner publisher.
        @inlinable func request(_ demand: Subscribers.Demand) {
            APIViolation.checkDemand(demand)
            let target: (any Subscription)? = lock.withLock {
                guard case .active = status else { return nil }
                self.demand += demand
                return currentSubscription
            }
            target?.request(demand)
        }

        /// Cancels the current inner publisher, then the upstream.
        @inlinable func cancel() {
            // The queue is handed out too, so its values are released once the lock is released.
            let (inner, outer, _): ((any Subscription)?, (any Subscription)?, RingBuffer<P.Output>) =
                lock.withLock {
                    if case .closed = status { return (nil, nil, RingBuffer()) }
                    status = .closed
                    let cancelled = (currentSubscription, upstream, queue)
                    current = nil
                    currentSubscription = nil
                    upstream = nil
                    queue = RingBuffer()
                    return cancelled
                }
            inner?.cancel()
            outer?.cancel()
        }

        // MARK: Delivery

        /// Ends the stream with `completion`: at once when nobody is delivering, otherwise after the
        /// values queued for the delivering thread (lock held).
        @inlinable func complete(with completion: Subscribers.Completion<Failure>) -> Step {
            guard !isDelivering else {
                status = .completing(completion)
                return .idle
            }
            status = .closed
            return .complete(completion)
        }

        /// The delivering thread's next step; gives up the delivering role when there is nothing to do
        /// (lock held).
        @inlinable func nextStep() -> Step {
            if case .closed = status {
                isDelivering = false
                return .idle
            }
            if let value = queue.popFirst() {
                return .deliver(value)
            }
            isDelivering = false
            if case .completing(let completion) = status {
                status = .closed
                return .complete(completion)
            }
            return .idle
        }

        @inlinable func run(_ first: Step) {
            var step = first
            while true {
                switch step {
                case .idle:
                    return
                case .complete(let completion):
                    downstream.receive(completion: completion)
                    return
                case .deliver(let value):
                    let more = downstream.receive(value)
                    let target: (any Subscription)?
                    (step, target) = lock.withLock {
                        demand += more
                        return (nextStep(), more > 0 ? currentSubscription : nil)
                    }
                    target?.request(more)
                }
            }
        }

        /// The subscriber attached to one inner publisher.
        @usableFromInline
        final class Side: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            @usableFromInline typealias Input = P.Output
            @usableFromInline typealias Failure = P.Failure

            @usableFromInline let parent: Switcher
            /// Guarded by the parent's lock.
            @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isSubscribed = false

            @inlinable init(parent: Switcher) {
                self.parent = parent
            }

            @usableFromInline var description: String { "SwitchToLatest" }

            @usableFromInline var customMirror: Mirror {
                Mirror(self, children: ["parentSubscription": parent.combineIdentifier])
            }

            @usableFromInline var playgroundDescription: Any { description }

            @inlinable func receive(subscription: any Subscription) {
                parent.side(self, received: subscription)
            }

            @inlinable func receive(_ input: P.Output) -> Subscribers.Demand {
                parent.side(self, received: input)
            }

            @inlinable func receive(completion: Subscribers.Completion<P.Failure>) {
                parent.side(self, received: completion)
            }
        }
    }
}

extension Publisher where Output: Publisher, Output.Failure == Failure {
    /// Republishes the elements of the most recent publisher this publisher emitted, cancelling the
    /// previous one each time a new one arrives.
    ///
    /// The result finishes once this publisher and the latest inner publisher finished, and fails with
    /// the first failure of either.
    ///
    /// - Returns: A publisher of the values of the latest inner publisher.
    @inlinable public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Failure == Never {
    /// Republishes the elements of the most recent publisher this publisher (which cannot fail)
    /// emitted, cancelling the previous one each time a new one arrives; fails with the failure of the
    /// latest inner publisher.
    ///
    /// - Returns: A publisher of the values of the latest inner publisher.
    @inlinable public func switchToLatest()
        -> Publishers.SwitchToLatest<Output, Publishers.SetFailureType<Self, Output.Failure>>
    {
        Publishers.SwitchToLatest(upstream: Publishers.SetFailureType(upstream: self))
    }
}

extension Publisher where Output: Publisher, Failure == Never, Output.Failure == Never {
    /// Republishes the elements of the most recent publisher this publisher emitted, cancelling the
    /// previous one each time a new one arrives; neither can fail.
    ///
    /// - Returns: A publisher of the values of the latest inner publisher.
    @inlinable public func switchToLatest() -> Publishers.SwitchToLatest<Output, Self> {
        Publishers.SwitchToLatest(upstream: self)
    }
}

extension Publisher where Output: Publisher, Output.Failure == Never {
    /// Republishes the elements of the most recent publisher (which cannot fail) this publisher
    /// emitted, cancelling the previous one each time a new one arrives; fails with this publisher's
    /// failure.
    ///
    /// - Returns: A publisher of the values of the latest inner publisher.
    @inlinable public func switchToLatest()
        -> Publishers.SwitchToLatest<
            Publishers.SetFailureType<Output, Failure>,
            Publishers.Map<Self, Publishers.SetFailureType<Output, Failure>>
        >
    {
        Publishers.SwitchToLatest(
            upstream: Publishers.Map(upstream: self) { Publishers.SetFailureType(upstream: $0) }
        )
    }
}
