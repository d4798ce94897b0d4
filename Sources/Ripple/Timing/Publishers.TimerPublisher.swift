extension Publishers {
    /// A connectable publisher that emits the scheduler's time every interval to all its subscribers,
    /// from ``connect()`` until the connection is cancelled: Ripple's counterpart of Combine's
    /// `Timer.TimerPublisher`.
    ///
    /// Combine's `Timer.publish(every:tolerance:on:in:options:)` needs Foundation's `Timer` and
    /// `RunLoop`, which Ripple does without; this publisher is driven by any ``Scheduler`` instead and
    /// emits the scheduler's time (`Context.SchedulerTimeType`) rather than a `Date`. Make one with
    /// ``Scheduler/timerPublisher(every:tolerance:options:)``. Like Combine's:
    ///
    /// - subscribers attach at any time and receive nothing until ``connect()``;
    /// - each ``connect()`` starts a repeating schedule, and every tick is delivered to each subscriber
    ///   that has demand at that moment (a subscriber without demand misses the tick);
    /// - cancelling a connection stops its schedule and detaches every current subscriber (they receive
    ///   no completion: a timer never completes);
    /// - dropping the returned connection does not disconnect (the publisher keeps it, and the scheduler
    ///   keeps the publisher, until the connection is cancelled).
    ///
    /// Use `autoconnect()` to connect with the first subscriber. Its subscriptions describe themselves
    /// as `"TimerPublisher"`.
    public final class TimerPublisher<Context: Scheduler>: ConnectablePublisher {
        /// The scheduler's time at each tick.
        public typealias Output = Context.SchedulerTimeType
        /// A timer never fails.
        public typealias Failure = Never

        /// The scheduler that runs the timer and delivers the ticks.
        public let scheduler: Context
        /// The options the timer is scheduled with.
        public let options: Context.SchedulerOptions?
        /// The time between ticks.
        public let interval: Context.SchedulerTimeType.Stride
        /// How late a tick may be; `nil` uses the scheduler's `minimumTolerance`.
        public let tolerance: Context.SchedulerTimeType.Stride?

        private let lock = Lock()
        private nonisolated(unsafe) var targets: [any TimerTickTarget<Output>] = []
        /// The connections not cancelled yet (they keep their schedules running).
        private nonisolated(unsafe) var connections: [Connection] = []

        /// A timer publisher that ticks every `interval` on `scheduler` once connected.
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
            self.scheduler = scheduler
            self.options = options
            self.interval = interval
            self.tolerance = tolerance
        }

        /// Gives `subscriber` its subscription; it receives the ticks of every connection from now on.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let subscription = TimerTickSubscription(downstream: subscriber, name: "TimerPublisher")
            subscriber.receive(subscription: subscription)
            guard subscription.isSubscribed else { return }
            lock.withLock { targets.append(subscription) }
            subscription.attach(Detachment(publisher: self, target: subscription))
        }

        /// Starts ticking: every `interval` from now, the scheduler's time goes to each subscriber with
        /// demand.
        ///
        /// - Returns: the connection; cancel it to stop this schedule and detach every subscriber.
        ///   Dropping it does not disconnect. Each call starts another schedule.
        public func connect() -> any Cancellable {
            let connection = Connection(publisher: self)
            lock.withLock { connections.append(connection) }
            let scheduler = self.scheduler
            let timer = scheduler.schedule(
                after: scheduler.now.advanced(by: interval),
                interval: interval,
                tolerance: tolerance ?? scheduler.minimumTolerance,
                options: options
            ) {
                self.fire(at: scheduler.now)
            }
            connection.start(timer)
            return connection
        }

        // MARK: Private

        private func fire(at time: Output) {
            let targets = lock.withLock { self.targets }
            for target in targets { target.tick(time) }
        }

        fileprivate func detach(_ target: AnyObject) {
            lock.withLock { targets.removeAll { $0 === target } }
        }

        /// Forgets a cancelled connection and detaches every subscriber, as Combine's timer does.
        private func disconnect(_ connection: Connection) {
            lock.withLock {
                connections.removeAll { $0 === connection }
                targets.removeAll()
            }
        }

        /// The connection ``connect()`` returns. The publisher keeps it (and so its schedule) until it
        /// is cancelled, so that dropping it does not disconnect.
        private final class Connection: Cancellable {
            private let lock = Lock()
            private nonisolated(unsafe) var timer: (any Cancellable)?
            private nonisolated(unsafe) var publisher: TimerPublisher?

            init(publisher: TimerPublisher) {
                self.publisher = publisher
            }

            /// Keeps the schedule's cancellable; cancels it at once if the connection is already cancelled.
            func start(_ timer: any Cancellable) {
                let accepted = lock.withLock { () -> Bool in
                    guard publisher != nil else { return false }
                    self.timer = timer
                    return true
                }
                if !accepted { timer.cancel() }
            }

            func cancel() {
                let (timer, publisher) = lock.withLock { () -> ((any Cancellable)?, TimerPublisher?) in
                    defer {
                        self.timer = nil
                        self.publisher = nil
                    }
                    return (self.timer, self.publisher)
                }
                timer?.cancel()
                publisher?.disconnect(self)
            }
        }

        /// Detaches one subscription when it is cancelled.
        private struct Detachment: Cancellable {
            weak var publisher: TimerPublisher?
            weak var target: AnyObject?

            func cancel() {
                guard let target else { return }
                publisher?.detach(target)
            }
        }
    }
}

extension Scheduler {
    /// A connectable publisher that emits this scheduler's time every `interval` to all its subscribers
    /// once connected; Ripple's counterpart of Combine's `Timer.publish(every:on:in:)`. See
    /// ``Publishers/TimerPublisher``.
    ///
    /// ```swift
    /// let timer = DispatchQueue.main.timerPublisher(every: .seconds(1))
    /// let ticks = timer.sink { time in print("tick at", time) }
    /// let connection = timer.connect()
    /// ```
    ///
    /// - Parameters:
    ///   - interval: the time between ticks.
    ///   - tolerance: how late a tick may be; `nil` uses the scheduler's `minimumTolerance`.
    ///   - options: scheduler options for the timer.
    /// - Returns: A connectable publisher of this scheduler's time, every `interval`.
    public func timerPublisher(
        every interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride? = nil,
        options: SchedulerOptions? = nil
    ) -> Publishers.TimerPublisher<Self> {
        Publishers.TimerPublisher(interval: interval, tolerance: tolerance, scheduler: self, options: options)
    }
}
