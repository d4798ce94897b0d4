extension Publishers {
    /// A publisher that ends its upstream when the upstream produces no value for a given interval.
    ///
    /// The interval is measured on ``scheduler`` from the subscription, again from the subscriber's
    /// first request, and again from every value. When it elapses, the upstream is cancelled and the
    /// subscriber receives `.finished`, or `.failure(customError())` when ``customError`` is given.
    /// Values and the upstream's completion are delivered on the scheduler
    /// (`schedule(options:_:)`), so they may arrive later than the values' own time. Its subscription
    /// describes itself as `"Timeout"`.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher that is watched.
        public let upstream: Upstream
        /// The longest time the upstream may go without a value.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler that measures the interval and delivers.
        public let scheduler: Context
        /// The options the timer and the deliveries are scheduled with.
        public let options: Context.SchedulerOptions?
        /// Makes the error to fail with on timeout; `nil` finishes normally.
        public let customError: (() -> Upstream.Failure)?

        /// A publisher that ends `upstream` after `interval` without a value.
        ///
        /// - Parameters:
        ///   - upstream: the publisher that is watched.
        ///   - interval: the longest time the upstream may go without a value.
        ///   - scheduler: the scheduler that measures the interval and delivers.
        ///   - options: the options the timer and the deliveries are scheduled with.
        ///   - customError: Makes the error to fail with on timeout; `nil` finishes normally.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions?,
            customError: (() -> Publishers.Timeout<Upstream, Context>.Failure)?
        ) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        /// Attaches `subscriber` through a subscriber that runs the timeout clock.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                Inner(
                    downstream: subscriber, interval: interval, scheduler: scheduler, options: options,
                    customError: customError)
            )
        }
    }
}

extension Publisher {
    /// Ends the publisher if it goes longer than `interval` without producing a value.
    ///
    /// - Parameters:
    ///   - interval: the longest gap allowed, from the subscription, the first request and each value.
    ///   - scheduler: the scheduler that measures time and delivers values and the completion.
    ///   - options: scheduler options for the timer and the deliveries.
    ///   - customError: makes the error to fail with on timeout; `nil` finishes normally instead.
    /// - Returns: a publisher that emits this publisher's values and completes as it does, or on timeout.
    public func timeout<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride,
        scheduler: S,
        options: S.SchedulerOptions? = nil,
        customError: (() -> Failure)? = nil
    ) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(
            upstream: self, interval: interval, scheduler: scheduler, options: options, customError: customError)
    }
}

extension Publishers.Timeout {
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private enum Signal {
            case subscription
            case value(Input)
            case completion(Subscribers.Completion<Failure>)
            case timeout
        }

        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        private let interval: Context.SchedulerTimeType.Stride
        private let customError: (() -> Failure)?
        private let downstream: Downstream
        private let lock = Lock()
        /// `pendingTerminal(upstream)` while the upstream's completion waits on the scheduler: as in
        /// Combine, a cancel meanwhile still cancels the upstream subscription.
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
        /// The running timeout clock.
        private nonisolated(unsafe) var timer: (any Cancellable)?
        /// Which clock is current: a clock that fires for an older generation is stale.
        private nonisolated(unsafe) var generation: UInt64 = 0
        private nonisolated(unsafe) var hasRequested = false
        private nonisolated(unsafe) var signals = SerialSignalQueue<Signal>()

        init(
            downstream: Downstream,
            interval: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions?,
            customError: (() -> Failure)?
        ) {
            self.scheduler = scheduler
            self.options = options
            self.interval = interval
            self.customError = customError
            self.downstream = downstream
        }

        var description: String { "Timeout" }

        var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> (generation: UInt64, first: Signal?)? in
                guard status.accept(subscription) else { return nil }
                generation += 1
                return (generation, signals.offer(.subscription))
            }
            guard let accepted else {
                subscription.cancel()
                return
            }
            startClock(accepted.generation)
            if let first = accepted.first { deliver(first) }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            guard let restart = restartClock(onlyOnFirstRequest: false) else { return .none }
            restart.previous?.cancel()
            startClock(restart.generation)
            scheduler.schedule(options: options) { self.scheduled(.value(input)) }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let accepted = lock.withLock { () -> (accepted: Bool, timer: (any Cancellable)?) in
                guard let upstream = status.subscription else { return (false, nil) }
                status = .pendingTerminal(upstream)
                generation += 1
                let timer = self.timer
                self.timer = nil
                return (true, timer)
            }
            accepted.timer?.cancel()
            guard accepted.accepted else { return }
            scheduler.schedule(options: options) { self.scheduled(.completion(completion)) }
        }

        func request(_ demand: Subscribers.Demand) {
            let upstream = lock.withLock { status.subscription }
            guard let upstream else { return }
            if let restart = restartClock(onlyOnFirstRequest: true) {
                restart.previous?.cancel()
                startClock(restart.generation)
            }
            upstream.request(demand)
        }

        /// A cancel before the upstream's subscription is forgotten, as in Combine; no downstream reaches that
        /// case, because this subscription goes downstream only after the upstream's has arrived.
        func cancel() {
            let stopped = lock.withLock { () -> (upstream: (any Subscription)?, timer: (any Cancellable)?) in
                if status.isAwaitingSubscription { return (nil, nil) }
                let current = status
                status = .terminal
                signals.discardPending()
                let timer = self.timer
                self.timer = nil
                switch current {
                case .subscribed(let upstream), .pendingTerminal(let upstream?): return (upstream, timer)
                case .awaitingSubscription, .pendingTerminal(nil), .terminal: return (nil, timer)
                }
            }
            stopped.timer?.cancel()
            stopped.upstream?.cancel()
        }

        // MARK: Private

        /// Begins a new generation of the clock while subscribed (on the first request only, when asked),
        /// taking the current clock out to be cancelled.
        private func restartClock(onlyOnFirstRequest: Bool) -> (generation: UInt64, previous: (any Cancellable)?)? {
            lock.withLock {
                guard status.isSubscribed else { return nil }
                if onlyOnFirstRequest {
                    guard !hasRequested else { return nil }
                    hasRequested = true
                }
                generation += 1
                let previous = timer
                timer = nil
                return (generation, previous)
            }
        }

        /// Schedules the clock of `generation`; keeps it unless a newer generation began meanwhile.
        ///
        /// As in Combine, the clock cannot run on ``ImmediateScheduler`` (it would time out at once, inside
        /// the subscription): that traps.
        private func startClock(_ generation: UInt64) {
            if Context.self == ImmediateScheduler.self { APIViolation.timeoutOnImmediateScheduler() }
            let clock = scheduler.schedule(
                after: scheduler.now.advanced(by: interval),
                interval: interval,
                tolerance: scheduler.minimumTolerance,
                options: options
            ) {
                self.timedOut(generation)
            }
            let stale = lock.withLock { () -> (any Cancellable)? in
                guard self.generation == generation, status.isSubscribed else { return clock }
                let previous = timer
                timer = clock
                return previous
            }
            stale?.cancel()
        }

        private func timedOut(_ generation: UInt64) {
            let fired = lock.withLock {
                () -> (upstream: any Subscription, timer: (any Cancellable)?, first: Signal?)? in
                guard self.generation == generation, let upstream = status.subscription else { return nil }
                status = .terminal
                let timer = self.timer
                self.timer = nil
                return (upstream, timer, signals.offer(.timeout))
            }
            guard let fired else { return }
            fired.timer?.cancel()
            fired.upstream.cancel()
            if let first = fired.first { deliver(first) }
        }

        private func scheduled(_ signal: Signal) {
            let first = lock.withLock { () -> Signal? in
                switch (status, signal) {
                case (.subscribed, .value), (.pendingTerminal, .value):
                    return signals.offer(signal)
                case (.pendingTerminal, .completion):
                    status = .terminal
                    return signals.offer(signal)
                default:
                    return nil
                }
            }
            if let first { deliver(first) }
        }

        private func deliver(_ first: Signal) {
            var signal = first
            while true {
                switch signal {
                case .subscription:
                    downstream.receive(subscription: self)
                case .value(let value):
                    let demand = downstream.receive(value)
                    if demand > 0 {
                        let upstream = lock.withLock { status.subscription }
                        upstream?.request(demand)
                    }
                case .completion(let completion):
                    downstream.receive(completion: completion)
                case .timeout:
                    downstream.receive(completion: customError.map { makeError in .failure(makeError()) } ?? .finished)
                }
                guard let next = lock.withLock({ signals.next() }) else { return }
                signal = next
            }
        }
    }
}
