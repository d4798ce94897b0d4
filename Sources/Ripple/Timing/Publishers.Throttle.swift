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
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        /// Attaches `subscriber` through a subscriber that keeps the value waiting for its time.
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
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private enum Status {
            case awaitingSubscription
            case subscribed(any Subscription)
            /// The upstream completed; its completion waits on the scheduler.
            case completing
            case terminal
        }

        private enum Signal {
            case subscription
            case value(Input)
            case completion(Subscribers.Completion<Failure>)
        }

        private let scheduler: Context
        private let interval: Context.SchedulerTimeType.Stride
        private let latest: Bool
        private let downstream: Downstream
        private let lock = Lock()
        private nonisolated(unsafe) var status = Status.awaitingSubscription
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        /// The value scheduled for emission (replaced by later ones when `latest`).
        private nonisolated(unsafe) var pendingValue: Input?
        /// The upstream's completion, scheduled or waiting behind `pendingValue`.
        private nonisolated(unsafe) var pendingCompletion: Subscribers.Completion<Failure>?
        private nonisolated(unsafe) var lastEmission: Context.SchedulerTimeType?
        private nonisolated(unsafe) var signals = SerialSignalQueue<Signal>()

        init(downstream: Downstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.scheduler = scheduler
            self.interval = interval
            self.latest = latest
            self.downstream = downstream
        }

        var description: String { "Throttle" }

        var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> (accepted: Bool, first: Signal?) in
                guard case .awaitingSubscription = status else { return (false, nil) }
                status = .subscribed(subscription)
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
            let now = scheduler.now
            let emission = lock.withLock { () -> Context.SchedulerTimeType? in
                guard case .subscribed = status, demand > 0 else { return nil }
                guard pendingValue == nil else {
                    if latest { pendingValue = input }
                    return nil
                }
                demand -= 1
                pendingValue = input
                guard let lastEmission else { return now }
                return Swift.max(now, lastEmission.advanced(by: interval))
            }
            guard let emission else { return .none }
            if emission == now {
                scheduler.schedule { self.emit() }
            } else {
                scheduler.schedule(after: emission) { self.emit() }
            }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let scheduleNow = lock.withLock { () -> Bool in
                guard case .subscribed = status else { return false }
                status = .completing
                pendingCompletion = completion
                return pendingValue == nil
            }
            if scheduleNow { scheduler.schedule { self.emit() } }
        }

        func request(_ demand: Subscribers.Demand) {
            lock.withLock {
                if case .subscribed = status { self.demand += demand }
            }
        }

        func cancel() {
            let upstream = lock.withLock { () -> (any Subscription)? in
                let current = status
                status = .terminal
                pendingValue = nil
                pendingCompletion = nil
                signals.discardPending()
                if case .subscribed(let upstream) = current { return upstream }
                return nil
            }
            upstream?.cancel()
        }

        // MARK: Private

        /// Emits the waiting value and the completion waiting behind it, if any.
        private func emit() {
            let now = scheduler.now
            let first = lock.withLock { () -> Signal? in
                switch status {
                case .awaitingSubscription, .terminal: return nil
                case .subscribed, .completing: break
                }
                if let value = pendingValue {
                    pendingValue = nil
                    lastEmission = now
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
            while true {
                var more = Subscribers.Demand.none
                switch signal {
                case .subscription: downstream.receive(subscription: self)
                case .value(let value): more = downstream.receive(value)
                case .completion(let completion): downstream.receive(completion: completion)
                }
                let next = lock.withLock { () -> Signal? in
                    if more > 0, case .subscribed = status { demand += more }
                    return signals.next()
                }
                guard let next else { return }
                signal = next
            }
        }
    }
}
