extension Publishers {
    /// A publisher that delivers its upstream's values and completion on a scheduler.
    ///
    /// The subscription reaches the subscriber at once; each value and the completion are handed to
    /// ``scheduler`` (`schedule(options:_:)`) and delivered when it runs them. Requests and cancellation
    /// go straight to the upstream. Its subscription describes itself as `"ReceiveOn"`.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose signals are moved to the scheduler.
        public let upstream: Upstream
        /// The scheduler the subscriber receives values and the completion on.
        public let scheduler: Context
        /// The options every delivery is scheduled with.
        public let options: Context.SchedulerOptions?

        /// A publisher that delivers `upstream`'s values and completion on `scheduler`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose signals are moved to the scheduler.
        ///   - scheduler: the scheduler the subscriber receives values and the completion on.
        ///   - options: the options every delivery is scheduled with.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Attaches `subscriber` through a relay that moves every value and the completion to the scheduler.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let relay = ScheduledRelay(
                downstream: subscriber, scheduler: scheduler, timing: .now(options), kind: ReceiveOnRelay.self)
            upstream.subscribe(relay)
        }
    }
}

extension Publisher {
    /// Delivers this publisher's values and completion on `scheduler`.
    ///
    /// Use it to move the downstream's work to a queue or loop, e.g. `receive(on: DispatchQueue.main)`.
    /// Subscription, requests and cancellation still happen on the threads that perform them (see
    /// ``subscribe(on:options:)`` to move those).
    ///
    /// - Parameters:
    ///   - scheduler: where the subscriber receives values and the completion.
    ///   - options: scheduler options for each delivery.
    /// - Returns: a publisher that emits the same values and completion, delivered on `scheduler`.
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.ReceiveOn<Self, S>
    {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}
