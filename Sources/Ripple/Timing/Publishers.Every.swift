extension Publishers {
    /// A publisher that emits the scheduler's time every interval, for each subscriber from the moment
    /// it subscribes, until cancelled. It never completes.
    ///
    /// Ripple has no Foundation `Timer`, so timers are driven by a ``Scheduler``: each subscriber gets
    /// its own repeating schedule (`schedule(after: now + interval, interval:tolerance:options:)`) that
    /// starts when it subscribes, and every tick emits the scheduler's `now`. A tick that finds the
    /// subscriber without demand is dropped, as with Combine's `Timer` publisher. Cancelling stops the
    /// schedule. For Combine's shared, connectable timer (`Timer.publish(every:on:in:)`) see
    /// ``Publishers/TimerPublisher``. Its subscription describes itself as `"Every"`.
    ///
    /// ```swift
    /// let ticks = Publishers.every(.seconds(1), on: DispatchQueue.main)
    ///     .sink { time in print("tick at", time) }
    /// ```
    public struct Every<Context: Scheduler>: Publisher {
        /// The scheduler's time at each tick.
        public typealias Output = Context.SchedulerTimeType
        /// A timer never fails.
        public typealias Failure = Never

        /// The time between ticks.
        public let interval: Context.SchedulerTimeType.Stride
        /// How late a tick may be; `nil` uses the scheduler's `minimumTolerance`.
        public let tolerance: Context.SchedulerTimeType.Stride?
        /// The scheduler that runs the timer and delivers the ticks.
        public let scheduler: Context
        /// The options the timer is scheduled with.
        public let options: Context.SchedulerOptions?

        /// A publisher that ticks every `interval` on `scheduler`.
        ///
        /// - Parameters:
        ///   - interval: the time between ticks.
        ///   - tolerance: how late a tick may be; `nil` uses the scheduler's `minimumTolerance`.
        ///   - scheduler: the scheduler that runs the timer and delivers the ticks.
        ///   - options: the options the timer is scheduled with.
        public init(
            interval: Context.SchedulerTimeType.Stride,
            tolerance: Context.SchedulerTimeType.Stride? = nil,
            scheduler: Context,
            options: Context.SchedulerOptions? = nil
        ) {
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        /// Gives `subscriber` its subscription, then starts its own repeating schedule.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = TimerTickSubscription(downstream: subscriber, name: "Every")
            subscriber.receive(subscription: subscription)
            guard subscription.isSubscribed else { return }
            let scheduler = self.scheduler
            let timer = scheduler.schedule(
                after: scheduler.now.advanced(by: interval),
                interval: interval,
                tolerance: tolerance ?? scheduler.minimumTolerance,
                options: options
            ) {
                subscription.tick(scheduler.now)
            }
            subscription.attach(timer)
        }
    }

    /// A publisher that emits `scheduler`'s time every `interval`, for each subscriber from the moment
    /// it subscribes; see ``Every``.
    ///
    /// - Parameters:
    ///   - interval: the time between ticks.
    ///   - tolerance: how late a tick may be; `nil` uses the scheduler's `minimumTolerance`.
    ///   - scheduler: the scheduler that runs the timer and delivers the ticks.
    ///   - options: scheduler options for the timer.
    /// - Returns: A publisher of the scheduler's time, every `interval`.
    public static func every<S: Scheduler>(
        _ interval: S.SchedulerTimeType.Stride,
        tolerance: S.SchedulerTimeType.Stride? = nil,
        on scheduler: S,
        options: S.SchedulerOptions? = nil
    ) -> Every<S> {
        Every(interval: interval, tolerance: tolerance, scheduler: scheduler, options: options)
    }
}
