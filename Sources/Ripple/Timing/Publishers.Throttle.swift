extension Publishers {
    /// A publisher that emits at most one value of its upstream per interval: the first or the latest
    /// value received in it.
    ///
    /// It requests unlimited values from the upstream. A value that arrives when nothing is waiting is
    /// scheduled on ``scheduler`` for the earliest time allowed: at once if no value was emitted in the
    /// last ``interval``, else ``interval`` after the last emission. Values that arrive while one is
    /// waiting replace it when ``latest`` is `true`, and are dropped when it is `false`. Values that
    /// arrive while the subscriber has no demand are dropped. The upstream's completion is delivered on
    /// the scheduler, right after a value still waiting. Its subscription describes itself as `"Throttle"`.
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher that is throttled.
        public let upstream: Upstream
        /// The shortest time between two emitted values.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler that measures time and delivers.
        public let scheduler: Context
        /// Whether the latest value of an interval is emitted (`true`) or the first (`false`).
        public let latest: Bool

        /// A publisher that emits at most one of `upstream`'s values per `interval`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher that is throttled.
        ///   - interval: the shortest time between two emitted values.
        ///   - scheduler: the scheduler that measures time and delivers.
        ///   - latest: whether the latest value of an interval is emitted (`true`) or the first (`false`).
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Attaches `subscriber` through a subscriber that keeps the value waiting for its time.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, interval: interval, scheduler: scheduler, latest: latest))
        }
    }
}

extension Publisher {
    /// Emits at most one value per `interval`: the first or the latest value received in each interval.
    ///
    /// - Parameters:
    ///   - interval: the shortest time between two emitted values.
    ///   - scheduler: the scheduler that measures time and delivers.
    ///   - latest: `true` to emit the latest value of an interval, `false` for the first.
    /// - Returns: a publisher that emits a subset of this publisher's values and completes as it does.
    public func throttle<S: Scheduler>(for interval: S.SchedulerTimeType.Stride, scheduler: S, latest: Bool)
        -> Publishers.Throttle<Self, S>
    {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

extension Publishers.Throttle {
    /// The subscriber to the upstream and the subscription of the downstream.
    ///
    /// It reads the scheduler's clock and schedules exactly where Combine's does, so a custom scheduler
    /// sees the same calls: `now` when it is made, when the subscription arrives, for each value and for
    /// the completion while subscribed, and when a value alone is emitted. The scheduled emissions hold it
    /// weakly, and it lets go of the downstream once it has completed or been cancelled.
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
        private let interval: Context.SchedulerTimeType.Stride
        private let latest: Bool
        private let lock = Lock()
        /// Until the completion has been delivered or the subscription cancelled.
        private nonisolated(unsafe) var downstream: Downstream?
        /// `pendingTerminal(nil)` while the upstream's completion waits on the scheduler.
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        /// The value scheduled for emission (replaced by later ones when `latest`).
        private nonisolated(unsafe) var pendingValue: Input?
        /// The upstream's completion, scheduled or waiting behind `pendingValue`.
        private nonisolated(unsafe) var pendingCompletion: Subscribers.Completion<Failure>?
        private nonisolated(unsafe) var lastEmission: Context.SchedulerTimeType?
        /// When the upstream last signalled (as Combine, which reads the clock for it).
        private nonisolated(unsafe) var lastSignal: Context.SchedulerTimeType
        private nonisolated(unsafe) var signals = SerialSignalQueue<Signal>()

        init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.scheduler = scheduler
            self.interval = interval
            self.latest = latest
            self.downstream = downstream
            lastSignal = scheduler.now
        }

        var description: String { "Throttle" }

        var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> (accepted: Bool, first: Signal?) in
                guard status.accept(subscription) else { return (false, nil) }
                lastSignal = scheduler.now
                return (true, signals.offer(.subscription))
            }
            guard accepted.accepted else {
                subscription.cancel()
                return
            }
            subscription.request(.unlimited)
            if let first = accepted.first { deliver(first) }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let emission = lock.withLock { () -> (at: Context.SchedulerTimeType, now: Bool)? in
                guard status.isSubscribed else { return nil }
                let now = scheduler.now
                lastSignal = now
                guard demand > 0 else { return nil }
                guard pendingValue == nil, pendingCompletion == nil else {
                    if latest, pendingValue != nil { pendingValue = input }
                    return nil
                }
                demand -= 1
                pendingValue = input
                guard let lastEmission else { return (now, true) }
                let earliest = lastEmission.advanced(by: interval)
                return earliest > now ? (earliest, false) : (now, true)
            }
            guard let emission else { return .none }
            if emission.now {
                scheduler.schedule { [weak self] in self?.emit() }
            } else {
                scheduler.schedule(after: emission.at) { [weak self] in self?.emit() }
            }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let scheduleNow = lock.withLock { () -> Bool in
                guard status.isSubscribed else { return false }
                lastSignal = scheduler.now
                status = .pendingTerminal(nil)
                pendingCompletion = completion
                return pendingValue == nil
            }
            if scheduleNow { scheduler.schedule { [weak self] in self?.emit() } }
        }

        func request(_ demand: Subscribers.Demand) {
            lock.withLock {
                if status.isSubscribed { self.demand += demand }
            }
        }

        func cancel() {
            let released = lock.withLock { () -> (upstream: (any Subscription)?, downstream: Downstream?) in
                let upstream = status.cancel()
                pendingValue = nil
                pendingCompletion = nil
                signals.discardPending()
                let downstream = self.downstream
                self.downstream = nil
                return (upstream, downstream)
            }
            withExtendedLifetime(released.downstream) { released.upstream?.cancel() }
        }

        // MARK: Private

        /// Emits the waiting value and the completion waiting behind it, if any.
        private func emit() {
            let first = lock.withLock { () -> Signal? in
                switch status {
                case .awaitingSubscription, .terminal: return nil
                case .subscribed, .pendingTerminal: break
                }
                if let value = pendingValue {
                    pendingValue = nil
                    if pendingCompletion == nil { lastEmission = scheduler.now }
                    signals.append(.value(value))
                }
                if let completion = pendingCompletion {
                    pendingCompletion = nil
                    status = .terminal
                    signals.append(.completion(completion))
                }
                return signals.claim()
            }
            if let first { deliver(first) }
        }

        private func deliver(_ first: Signal) {
            var signal = first
            var target = lock.withLock { downstream }
            while let downstream = target {
                var more = Subscribers.Demand.none
                var completed = false
                switch signal {
                case .subscription: downstream.receive(subscription: self)
                case .value(let value): more = downstream.receive(value)
                case .completion(let completion):
                    downstream.receive(completion: completion)
                    completed = true
                }
                let next = lock.withLock { () -> (signal: Signal, downstream: Downstream?)? in
                    if more > 0, status.isSubscribed { demand += more }
                    if completed { self.downstream = nil }
                    guard let next = signals.next() else { return nil }
                    return (next, self.downstream)
                }
                guard let next else { return }
                signal = next.signal
                target = next.downstream
            }
            // The downstream is gone (cancelled): stop being the deliverer.
            lock.withLock {
                signals.discardPending()
                _ = signals.next()
            }
        }
    }
}
