extension Publishers {
    /// A publisher that emits, for each value of its upstream, the time elapsed since the previous value
    /// (or, for the first, since the subscription), measured on a scheduler's clock.
    ///
    /// Values are replaced by `Context.SchedulerTimeType.Stride`s and delivered at once, on the
    /// upstream's thread; the completion passes through. As in Combine, the demand the subscriber
    /// returns from `receive(_:)` is passed to the upstream with a separate `request` call, and the
    /// subscription describes itself as `"MeasureInterval"`.
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The interval since the previous value.
        public typealias Output = Context.SchedulerTimeType.Stride
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are timed.
        public let upstream: Upstream
        /// The scheduler whose `now` is read for each value.
        public let scheduler: Context

        /// A publisher that measures the intervals between `upstream`'s values on `scheduler`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are timed.
        ///   - scheduler: the scheduler whose `now` is read for each value.
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        /// Attaches `subscriber` through a subscriber that reads the scheduler's clock at each value.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, scheduler: scheduler))
        }
    }
}

extension Publisher {
    /// Emits the time between consecutive values (the first one: since the subscription), measured
    /// with `scheduler`'s clock, instead of the values.
    ///
    /// - Parameters:
    ///   - scheduler: the scheduler whose `now` is read.
    ///   - options: accepted for Combine compatibility; measuring schedules nothing.
    /// - Returns: a publisher of intervals that completes as this publisher does.
    public func measureInterval<S: Scheduler>(using scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.MeasureInterval<Self, S>
    {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}

extension Publishers.MeasureInterval {
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Context.SchedulerTimeType.Stride, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private let scheduler: Context
        private let downstream: Downstream
        private let lock = Lock()
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
        /// Once subscribed: the time of the subscription or of the previous value.
        private nonisolated(unsafe) var last: Context.SchedulerTimeType?

        init(downstream: Downstream, scheduler: Context) {
            self.scheduler = scheduler
            self.downstream = downstream
        }

        var description: String { "MeasureInterval" }

        var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let now = scheduler.now
            let accepted = lock.withLock { () -> Bool in
                guard status.accept(subscription) else { return false }
                last = now
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            // As in Combine, the clock is read only while subscribed.
            let measured = lock.withLock {
                () -> (upstream: any Subscription, interval: Context.SchedulerTimeType.Stride)? in
                guard let upstream = status.subscription, let last else { return nil }
                let now = scheduler.now
                self.last = now
                return (upstream, last.distance(to: now))
            }
            guard let measured else { return .none }
            let demand = downstream.receive(measured.interval)
            if demand > 0 { measured.upstream.request(demand) }
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let accepted = lock.withLock { () -> Bool in
                guard status.isSubscribed else { return false }
                status = .terminal
                return true
            }
            if accepted { downstream.receive(completion: completion) }
        }

        func request(_ demand: Subscribers.Demand) {
            let upstream = lock.withLock { status.subscription }
            upstream?.request(demand)
        }

        func cancel() {
            let upstream = lock.withLock { () -> (any Subscription)? in
                guard status.isSubscribed else { return nil }
                return status.cancel()
            }
            upstream?.cancel()
        }
    }
}
