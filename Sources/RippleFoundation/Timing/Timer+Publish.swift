import Foundation
import Ripple

extension Timer {
    /// A connectable publisher of the time every `interval` on a run loop, as in Combine.
    ///
    /// ```swift
    /// let ticks = Timer.publish(every: 1, on: .current, in: .common)
    ///     .autoconnect()
    ///     .sink { date in print("tick at", date) }
    /// RunLoop.current.run(until: Date() + 5)   // on Linux, the thread runs its run loop itself
    /// ```
    ///
    /// - Parameters:
    ///   - interval: the seconds between ticks.
    ///   - tolerance: ignored, as Combine ignores it (the publisher's ``TimerPublisher/tolerance`` is `nil`).
    ///   - runLoop: the run loop whose thread fires the timer.
    ///   - mode: the run-loop mode the timer runs in (`.default` or `.common`).
    ///   - options: scheduler options (there are none for run loops).
    /// - Returns: a ``TimerPublisher``; it ticks once connected (`connect()` or `autoconnect()`).
    public static func publish(
        every interval: TimeInterval,
        tolerance: TimeInterval? = nil,
        on runLoop: RunLoop,
        in mode: RunLoop.Mode,
        options: RunLoop.SchedulerOptions? = nil
    ) -> TimerPublisher {
        TimerPublisher(interval: interval, runLoop: runLoop, mode: mode, options: options)
    }

    /// A connectable publisher that emits the current `Date` every ``interval`` on a run loop to all its
    /// subscribers, from `connect()` until the connection is cancelled, as Combine's does.
    ///
    /// - Subscribers attach at any time and receive nothing until `connect()`.
    /// - Each `connect()` adds a repeating `Timer` to the run loop in ``mode``; every tick is delivered to
    ///   each subscriber that has demand at that moment (one without demand misses the tick).
    /// - Cancelling a connection invalidates its timer and detaches every current subscriber (they receive
    ///   no completion: a timer never completes).
    ///
    /// The ticks run on the run loop's thread, and only while that thread runs its run loop. As in Combine,
    /// its subscriptions and connections do not describe or reflect themselves.
    public final class TimerPublisher: ConnectablePublisher {
        /// The time of each tick.
        public typealias Output = Date
        /// A timer never fails.
        public typealias Failure = Never

        /// The seconds between ticks.
        public let interval: TimeInterval
        /// How late a tick may be; `nil` for none.
        public let tolerance: TimeInterval?
        /// The run loop whose thread fires the timer.
        public let runLoop: RunLoop
        /// The run-loop mode the timer runs in.
        public let mode: RunLoop.Mode
        /// The scheduler options (there are none for run loops).
        public let options: RunLoop.SchedulerOptions?

        /// The engine: Ripple's scheduler-driven timer publisher, on this run loop and mode.
        private let ticks: Publishers.TimerPublisher<RunLoopModeScheduler>

        /// Creates a timer publisher that ticks every `interval` on `runLoop` in `mode` once connected.
        ///
        /// - Parameters:
        ///   - interval: the seconds between ticks.
        ///   - tolerance: how late a tick may be; `nil` for none.
        ///   - runLoop: the run loop whose thread fires the timer.
        ///   - mode: the run-loop mode the timer runs in.
        ///   - options: scheduler options (there are none for run loops).
        public init(
            interval: TimeInterval,
            tolerance: TimeInterval? = nil,
            runLoop: RunLoop,
            mode: RunLoop.Mode,
            options: RunLoop.SchedulerOptions? = nil
        ) {
            self.interval = interval
            self.tolerance = tolerance
            self.runLoop = runLoop
            self.mode = mode
            self.options = options
            ticks = Publishers.TimerPublisher(
                interval: .init(interval),
                tolerance: .init(tolerance ?? 0),
                scheduler: RunLoopModeScheduler(runLoop: runLoop, mode: mode),
                options: options
            )
        }

        /// Attaches `subscriber`; it receives the ticks of every connection from now on.
        ///
        /// - Parameter subscriber: the subscriber to attach.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Date, S.Failure == Never {
            ticks.receive(subscriber: TimerTickRelay(downstream: subscriber))
        }

        /// Starts ticking: a repeating timer on the run loop, first firing one interval from now.
        ///
        /// - Returns: the connection; cancel it to stop the timer and detach every subscriber. Dropping it
        ///   does not disconnect. Each call adds another timer.
        public func connect() -> any Cancellable {
            ticks.connect()
        }
    }
}

/// A run loop in one mode, as the scheduler of a ``Timer/TimerPublisher``: its repeating schedules are
/// timers added in that mode (the run loop's own scheduler uses the default mode, as in Combine).
struct RunLoopModeScheduler: Scheduler {
    typealias SchedulerTimeType = RunLoop.SchedulerTimeType
    typealias SchedulerOptions = RunLoop.SchedulerOptions

    let runLoop: RunLoop
    let mode: RunLoop.Mode

    var now: SchedulerTimeType { runLoop.now }
    var minimumTolerance: SchedulerTimeType.Stride { runLoop.minimumTolerance }

    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        runLoop.schedule(options: options, action)
    }

    func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        runLoop.schedule(after: date, tolerance: tolerance, options: options, action)
    }

    func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        runLoop.scheduleRepeating(
            after: date.date,
            interval: interval.timeInterval,
            tolerance: tolerance.timeInterval,
            in: mode,
            action
        )
    }
}

/// What a ``Timer/TimerPublisher`` hands its subscriber: the engine's ticks as `Date`s, through a
/// subscription that, like Combine's, has no description or mirror of its own.
private final class TimerTickRelay<Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
where Downstream.Input == Date, Downstream.Failure == Never {
    typealias Input = RunLoop.SchedulerTimeType
    typealias Failure = Never

    private let downstream: Downstream
    private let lock = Lock()
    /// The engine's subscription; guarded by `lock`.
    private nonisolated(unsafe) var upstream: (any Subscription)?

    init(downstream: Downstream) {
        self.downstream = downstream
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input.date)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let upstream = lock.withLock { self.upstream }
        upstream?.request(demand)
    }

    func cancel() {
        let upstream = lock.withLock { () -> (any Subscription)? in
            defer { self.upstream = nil }
            return self.upstream
        }
        upstream?.cancel()
    }
}
