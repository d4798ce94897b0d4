extension Publishers {
    /// A publisher that delivers each of its upstream's values, and its completion, a fixed interval
    /// after the upstream produced it, on a scheduler.
    ///
    /// The subscription reaches the subscriber at once. Each value and the completion are scheduled
    /// with `schedule(after: now + interval, tolerance:options:)` when they arrive, so gaps between them
    /// are kept; a failure is delayed too. Requests and cancellation go straight to the upstream, and
    /// after cancellation the values still waiting are dropped. As in Combine, its subscription has no
    /// description or mirror of its own (it prints as its type's name).
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose signals are delayed.
        public let upstream: Upstream
        /// How long each value and the completion are held back.
        public let interval: Context.SchedulerTimeType.Stride
        /// How late the scheduler may deliver them.
        public let tolerance: Context.SchedulerTimeType.Stride
        /// The scheduler that delivers them.
        public let scheduler: Context
        /// The options every delivery is scheduled with.
        public let options: Context.SchedulerOptions?

        /// A publisher that delays `upstream`'s values and completion by `interval` on `scheduler`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose signals are delayed.
        ///   - interval: how long each value and the completion are held back.
        ///   - tolerance: how late the scheduler may deliver them.
        ///   - scheduler: the scheduler that delivers them.
        ///   - options: the options every delivery is scheduled with.
        public init(
            upstream: Upstream,
            interval: Context.SchedulerTimeType.Stride,
            tolerance: Context.SchedulerTimeType.Stride,
            scheduler: Context,
            options: Context.SchedulerOptions? = nil
        ) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches `subscriber` through a relay that schedules every value and the completion `interval` later.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let relay = ScheduledRelay(
                downstream: subscriber,
                scheduler: scheduler,
                timing: .after(interval, tolerance: tolerance, options),
                kind: DelayRelay.self
            )
            upstream.subscribe(relay)
        }
    }
}

extension Publisher {
    /// Delays every value and the completion by `interval`, delivering them on `scheduler`.
    ///
    /// - Parameters:
    ///   - interval: how long to hold back each value and the completion.
    ///   - tolerance: how late they may be delivered; `nil` uses the scheduler's `minimumTolerance`.
    ///   - scheduler: the scheduler that delivers them.
    ///   - options: scheduler options for each delivery.
    /// - Returns: a publisher that emits the same values and completion, each `interval` later.
    public func delay<S: Scheduler>(
        for interval: S.SchedulerTimeType.Stride,
        tolerance: S.SchedulerTimeType.Stride? = nil,
        scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Publishers.Delay<Self, S> {
        Publishers.Delay(
            upstream: self,
            interval: interval,
            tolerance: tolerance ?? scheduler.minimumTolerance,
            scheduler: scheduler,
            options: options
        )
    }
}
