extension Publishers {
    /// A publisher that emits a value of its upstream only after the upstream has been quiet for a given
    /// time: a burst of values yields its last value, ``dueTime`` after it.
    ///
    /// It requests unlimited values from the upstream and keeps the latest; each new value restarts the
    /// wait. When the wait ends, the latest value is delivered on ``scheduler`` if the subscriber has
    /// demand, and dropped otherwise. The upstream's completion is delivered on the scheduler at once;
    /// as in Combine, a value still waiting then is dropped. Its subscription describes itself as
    /// `"Debounce"`.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose bursts are reduced to their last value.
        public let upstream: Upstream
        /// How long the upstream must be quiet before the latest value is emitted.
        public let dueTime: Context.SchedulerTimeType.Stride
        /// The scheduler that measures the wait and delivers.
        public let scheduler: Context
        /// The options the waits are scheduled with.
        public let options: Context.SchedulerOptions?

        /// A publisher that debounces `upstream` by `dueTime` on `scheduler`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose bursts are reduced to their last value.
        ///   - dueTime: how long the upstream must be quiet before the latest value is emitted.
        ///   - scheduler: the scheduler that measures the wait and delivers.
        ///   - options: the options the waits are scheduled with.
        public init(
            upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches `subscriber` through a subscriber that keeps the latest value and its wait.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, dueTime: dueTime, scheduler: scheduler, options: options))
        }
    }
}

extension Publisher {
    /// Emits a value only once `dueTime` has passed without another value: the last value of each burst.
    ///
    /// - Parameters:
    ///   - dueTime: how long the publisher must be quiet before the latest value is emitted.
    ///   - scheduler: the scheduler that measures the wait and delivers.
    ///   - options: scheduler options for the waits.
    /// - Returns: a publisher that emits the last value of each burst and completes as this one does.
    public func debounce<S: Scheduler>(
        for dueTime: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

extension Publishers.Debounce {
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private enum Signal {
            case subscription
            case value(Input)
            case completion(Subscribers.Completion<Failure>)
        }

        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        private let dueTime: Context.SchedulerTimeType.Stride
        private let downstream: Downstream
        private let lock = Lock()
        /// `pendingTerminal(nil)` while the upstream's completion waits on the scheduler.
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
        /// The latest value, waiting for the upstream to be quiet.
        private nonisolated(unsafe) var latest: Input?
        /// The wait for `latest`.
        private nonisolated(unsafe) var timer: (any Cancellable)?
        /// Which wait is current: a wait that ends for an older generation is stale.
        private nonisolated(unsafe) var generation: UInt64 = 0
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        private nonisolated(unsafe) var signals = SerialSignalQueue<Signal>()

        init(
            downstream: Downstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
            options: Context.SchedulerOptions?
        ) {
            self.scheduler = scheduler
            self.options = options
            self.dueTime = dueTime
            self.downstream = downstream
        }

        var description: String { "Debounce" }

        /// As Combine's: the downstream, its outstanding demand and the value waiting for quiet.
        var customMirror: Mirror {
            let (pending, value) = lock.withLock { (self.demand, self.latest) }
            let children: [Mirror.Child] = [
                ("downstream", downstream), ("downstreamDemand", pending), ("currentValue", value as Any),
            ]
            return Mirror(self, children: children)
        }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> (accepted: Bool, first: Signal?) in
                guard status.accept(subscription) else { return (false, nil) }
                return (true, signals.offer(.subscription))
            }
            guard accepted.accepted else {
                subscription.cancel()
                return
            }
            if let first = accepted.first { deliver(first) }
            subscription.request(.unlimited)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let started = lock.withLock { () -> (generation: UInt64, previous: (any Cancellable)?)? in
                guard status.isSubscribed else { return nil }
                generation += 1
                latest = input
                let previous = timer
                timer = nil
                return (generation, previous)
            }
            guard let started else { return .none }
            started.previous?.cancel()
            let current = started.generation
            let wait = scheduler.schedule(
                after: scheduler.now.advanced(by: dueTime),
                interval: dueTime,
                tolerance: scheduler.minimumTolerance,
                options: options
            ) {
                self.due(current)
            }
            let stale = lock.withLock { () -> (any Cancellable)? in
                guard generation == current, latest != nil, status.isSubscribed else { return wait }
                timer = wait
                return nil
            }
            stale?.cancel()
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let accepted = lock.withLock { () -> (accepted: Bool, timer: (any Cancellable)?) in
                guard status.isSubscribed else { return (false, nil) }
                status = .pendingTerminal(nil)
                latest = nil
                let timer = self.timer
                self.timer = nil
                return (true, timer)
            }
            accepted.timer?.cancel()
            guard accepted.accepted else { return }
            scheduler.schedule(options: nil) { self.completed(completion) }
        }

        func request(_ demand: Subscribers.Demand) {
            lock.withLock {
                switch status {
                case .subscribed, .pendingTerminal: self.demand += demand
                case .awaitingSubscription, .terminal: break
                }
            }
        }

        /// A cancel before the upstream's subscription is forgotten, as in Combine; no downstream reaches that
        /// case, because this subscription goes downstream only after the upstream's has arrived.
        func cancel() {
            let stopped = lock.withLock { () -> (upstream: (any Subscription)?, timer: (any Cancellable)?) in
                if status.isAwaitingSubscription { return (nil, nil) }
                let upstream = status.cancel()
                latest = nil
                signals.discardPending()
                let timer = self.timer
                self.timer = nil
                return (upstream, timer)
            }
            stopped.timer?.cancel()
            stopped.upstream?.cancel()
        }

        // MARK: Private

        /// The wait of `generation` ended: emits the latest value if it is still the latest and there
        /// is demand (otherwise it is dropped), and stops the wait.
        private func due(_ generation: UInt64) {
            let fired = lock.withLock { () -> (timer: (any Cancellable)?, first: Signal?)? in
                guard self.generation == generation, status.isSubscribed, let value = latest else { return nil }
                latest = nil
                let timer = self.timer
                self.timer = nil
                guard demand > 0 else { return (timer, nil) }
                demand -= 1
                return (timer, signals.offer(.value(value)))
            }
            guard let fired else { return }
            fired.timer?.cancel()
            if let first = fired.first { deliver(first) }
        }

        private func completed(_ completion: Subscribers.Completion<Failure>) {
            let first = lock.withLock { () -> Signal? in
                guard case .pendingTerminal = status else { return nil }
                status = .terminal
                return signals.offer(.completion(completion))
            }
            if let first { deliver(first) }
        }

        private func deliver(_ first: Signal) {
            var signal = first
            while true {
                var more = Subscribers.Demand.none
                switch signal {
                case .subscription: downstream.receive(subscription: self)
                case .value(let value): more = downstream.receive(value)
                case .completion(let completion): downstream.receive(completion: completion)
                }
                let next = lock.withLock { () -> Signal? in
                    if more > 0 { demand += more }
                    return signals.next()
                }
                guard let next else { return }
                signal = next
            }
        }
    }
}
