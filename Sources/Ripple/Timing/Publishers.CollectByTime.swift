extension Publishers {
    /// How ``Publishers/CollectByTime`` groups values: by time, or by time or count.
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// Emits what was collected every interval of the scheduler's time.
        case byTime(Context, Context.SchedulerTimeType.Stride)
        /// Emits what was collected every interval, and also as soon as the given number of values is
        /// collected (groups never hold more than that number; a number below 1 counts as 1).
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
    }

    /// A publisher that collects its upstream's values into arrays and emits them periodically (or, by
    /// time or count, as soon as an array is full).
    ///
    /// - A repeating timer runs on the strategy's scheduler from the subscription on. At every tick, if
    ///   values were collected and the subscriber has demand, they are emitted as one array (at most
    ///   `count` of them with ``TimeGroupingStrategy/byTimeOrCount(_:_:_:)``); ticks with nothing
    ///   collected emit nothing. Without demand, values keep being collected until demand comes.
    /// - With ``TimeGroupingStrategy/byTimeOrCount(_:_:_:)``, a full array is emitted on the scheduler as
    ///   soon as it is full and the subscriber has demand; the timer keeps its cadence.
    /// - Upstream demand, as in Combine: by time, each request of the subscriber requests `.max(1)` and
    ///   each value received asks for one more; by time or count, a request of `n` requests
    ///   `n * count` values.
    /// - When the upstream finishes, what is still collected is emitted (as demand allows, in arrays of
    ///   at most `count` values by time or count) and then `.finished`, on the scheduler. A failure is
    ///   delivered on the scheduler at once and the collected values are dropped.
    ///
    /// Its subscription describes itself as `"CollectByTime"`.
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// Arrays of the upstream's values.
        public typealias Output = [Upstream.Output]
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are collected.
        public let upstream: Upstream
        /// How the values are grouped.
        public let strategy: TimeGroupingStrategy<Context>
        /// The options the timer and the deliveries are scheduled with.
        public let options: Context.SchedulerOptions?

        /// A publisher that groups `upstream`'s values by `strategy`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are collected.
        ///   - strategy: how the values are grouped.
        ///   - options: the options the timer and the deliveries are scheduled with.
        public init(upstream: Upstream, strategy: TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        /// Attaches `subscriber` through a subscriber that collects values and runs the timer.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, strategy: strategy, options: options))
        }
    }
}

extension Publisher {
    /// Collects values into arrays emitted periodically, or (by time or count) also whenever `count`
    /// values are collected.
    ///
    /// - Parameters:
    ///   - strategy: `.byTime(scheduler, interval)` or `.byTimeOrCount(scheduler, interval, count)`.
    ///   - options: scheduler options for the timer and the deliveries.
    /// - Returns: a publisher of arrays of this publisher's values; see ``Publishers/CollectByTime``.
    public func collect<S: Scheduler>(
        _ strategy: Publishers.TimeGroupingStrategy<S>, options: S.SchedulerOptions? = nil
    )
        -> Publishers.CollectByTime<Self, S>
    {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}

extension Publishers.CollectByTime {
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private enum Signal {
            case subscription
            case group([Input])
            case completion(Subscribers.Completion<Failure>)
        }

        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        private let interval: Context.SchedulerTimeType.Stride
        /// The largest group (`byTimeOrCount`); `nil` by time.
        private let countLimit: Int?
        private let downstream: Downstream
        private let lock = Lock()
        /// `pendingTerminal(nil)` once the upstream completed: first while its completion waits on the
        /// scheduler, then (`flushing`) while the collected values go out as demand allows, before `.finished`.
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
        /// Within `pendingTerminal`: the upstream's `.finished` has been taken in and the buffer drains.
        private nonisolated(unsafe) var flushing = false
        private nonisolated(unsafe) var buffer: [Input] = []
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        private nonisolated(unsafe) var timer: (any Cancellable)?
        private nonisolated(unsafe) var signals = SerialSignalQueue<Signal>()

        init(
            downstream: Downstream, strategy: Publishers.TimeGroupingStrategy<Context>,
            options: Context.SchedulerOptions?
        ) {
            switch strategy {
            case .byTime(let scheduler, let interval):
                self.scheduler = scheduler
                self.interval = interval
                countLimit = nil
            case .byTimeOrCount(let scheduler, let interval, let count):
                self.scheduler = scheduler
                self.interval = interval
                countLimit = Swift.max(1, count)
            }
            self.options = options
            self.downstream = downstream
        }

        var description: String { "CollectByTime" }

        var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

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
            let clock = scheduler.schedule(
                after: scheduler.now.advanced(by: interval),
                interval: interval,
                tolerance: scheduler.minimumTolerance,
                options: options
            ) {
                self.tick()
            }
            let stale = lock.withLock { () -> (any Cancellable)? in
                guard status.isSubscribed else { return clock }
                timer = clock
                return nil
            }
            stale?.cancel()
            if let first = accepted.first { deliver(first) }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let outcome = lock.withLock { () -> (accepted: Bool, flush: Bool) in
                guard status.isSubscribed else { return (false, false) }
                buffer.append(input)
                guard let countLimit else { return (true, false) }
                return (true, buffer.count == countLimit && demand > 0)
            }
            guard outcome.accepted else { return .none }
            if outcome.flush { scheduler.schedule(options: options) { self.flush() } }
            return countLimit == nil ? .max(1) : .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let accepted = lock.withLock { () -> (accepted: Bool, timer: (any Cancellable)?) in
                guard status.isSubscribed else { return (false, nil) }
                status = .pendingTerminal(nil)
                let timer = self.timer
                self.timer = nil
                return (true, timer)
            }
            accepted.timer?.cancel()
            guard accepted.accepted else { return }
            scheduler.schedule(options: options) { self.completed(completion) }
        }

        func request(_ demand: Subscribers.Demand) {
            APIViolation.checkDemand(demand)
            let action = lock.withLock { () -> (upstream: (any Subscription)?, flush: Bool) in
                switch status {
                case .subscribed(let upstream):
                    self.demand += demand
                    let isFull = countLimit.map { buffer.count >= $0 } ?? false
                    return (upstream, isFull)
                case .pendingTerminal where flushing:
                    self.demand += demand
                    return (nil, true)
                case .awaitingSubscription, .pendingTerminal, .terminal:
                    return (nil, false)
                }
            }
            if let upstream = action.upstream {
                upstream.request(countLimit.map { demand * $0 } ?? .max(1))
            }
            if action.flush { scheduler.schedule(options: options) { self.flush() } }
        }

        func cancel() {
            let stopped = lock.withLock { () -> (upstream: (any Subscription)?, timer: (any Cancellable)?) in
                let upstream = status.cancel()
                buffer = []
                signals.discardPending()
                let timer = self.timer
                self.timer = nil
                return (upstream, timer)
            }
            stopped.timer?.cancel()
            stopped.upstream?.cancel()
        }

        // MARK: Private

        /// A tick of the timer: emits what was collected, if there is demand.
        private func tick() {
            let first = lock.withLock { () -> Signal? in
                guard status.isSubscribed else { return nil }
                if demand > 0, !buffer.isEmpty { queueGroup() }
                queueReadyGroups()
                return signals.claim()
            }
            if let first { deliver(first) }
        }

        /// Emits the full groups (by time or count) or, after the upstream finished, what is left.
        private func flush() {
            let first = lock.withLock { () -> Signal? in
                queueReadyGroups()
                return signals.claim()
            }
            if let first { deliver(first) }
        }

        private func completed(_ completion: Subscribers.Completion<Failure>) {
            let first = lock.withLock { () -> Signal? in
                guard case .pendingTerminal = status, !flushing else { return nil }
                switch completion {
                case .finished:
                    flushing = true
                    queueReadyGroups()
                case .failure:
                    status = .terminal
                    buffer = []
                    signals.append(.completion(completion))
                }
                return signals.claim()
            }
            if let first { deliver(first) }
        }

        /// Queues what may be emitted now besides ticks: full groups while subscribed (by time or
        /// count), or, while flushing, the rest of the buffer and then `.finished`. Lock held.
        private func queueReadyGroups() {
            switch status {
            case .subscribed:
                guard let countLimit else { return }
                while demand > 0, buffer.count >= countLimit { queueGroup() }
            case .pendingTerminal where flushing:
                while demand > 0, !buffer.isEmpty { queueGroup() }
                if buffer.isEmpty {
                    status = .terminal
                    signals.append(.completion(.finished))
                }
            case .awaitingSubscription, .pendingTerminal, .terminal:
                break
            }
        }

        /// Takes the oldest group (at most `countLimit` values) out of the buffer and queues it,
        /// spending one unit of demand. Lock held.
        private func queueGroup() {
            let size = Swift.min(buffer.count, countLimit ?? buffer.count)
            let group: [Input]
            if size == buffer.count {
                group = buffer
                buffer.removeAll(keepingCapacity: true)
            } else {
                group = Array(buffer.prefix(size))
                buffer.removeFirst(size)
            }
            demand -= 1
            signals.append(.group(group))
        }

        private func deliver(_ first: Signal) {
            var signal = first
            while true {
                var more = Subscribers.Demand.none
                switch signal {
                case .subscription: downstream.receive(subscription: self)
                case .group(let group): more = downstream.receive(group)
                case .completion(let completion): downstream.receive(completion: completion)
                }
                var upstream: (any Subscription)?
                if more > 0 {
                    upstream = lock.withLock { () -> (any Subscription)? in
                        switch status {
                        case .subscribed(let upstream):
                            demand += more
                            queueReadyGroups()
                            return upstream
                        case .pendingTerminal where flushing:
                            demand += more
                            queueReadyGroups()
                            return nil
                        case .awaitingSubscription, .pendingTerminal, .terminal:
                            return nil
                        }
                    }
                }
                // By time or count, demand returned for groups is passed on as `count` values each (by
                // time the upstream already has a value's worth of demand for every value it sent).
                if let upstream, let countLimit { upstream.request(more * countLimit) }
                guard let next = lock.withLock({ signals.next() }) else { return }
                signal = next
            }
        }
    }
}
