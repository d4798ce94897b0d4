import Foundation
import Ripple

/// A run loop runs scheduled work on its own thread, when that thread runs it, as in Combine.
///
/// On Linux nothing runs `RunLoop.main` unless the program does (there is no user-interface loop): schedule
/// on the run loop of a thread that calls `RunLoop.current.run()`, or use a `DispatchQueue` or an event
/// loop of `RippleLoop` instead.
extension RunLoop: Scheduler {
    /// A point in time on a run loop: a `Date`, as in Combine.
    public struct SchedulerTimeType: _DateSchedulerTime {
        /// The point in time.
        public var date: Date

        /// The point in time `date`.
        ///
        /// - Parameter date: the point in time.
        public init(_ date: Date) {
            self.date = date
        }

        /// A signed interval between two times on a run loop, in seconds; literals are seconds.
        public struct Stride: _TimeIntervalSchedulerStride {
            /// The interval in seconds.
            public var magnitude: TimeInterval

            /// An interval of `timeInterval` seconds.
            ///
            /// - Parameter timeInterval: the number of seconds.
            public init(_ timeInterval: TimeInterval) {
                magnitude = timeInterval
            }
        }
    }

    /// Options for work scheduled on a run loop: none, as in Combine.
    public struct SchedulerOptions: Sendable {}

    /// The current time.
    public var now: SchedulerTimeType {
        SchedulerTimeType(Date())
    }

    /// Zero: a run loop's timers take any tolerance.
    public var minimumTolerance: SchedulerTimeType.Stride {
        SchedulerTimeType.Stride(0)
    }

    /// Runs `action` on the run loop's next pass (in its common modes).
    ///
    /// - Parameters:
    ///   - options: unused.
    ///   - action: the work.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = ScheduledAction(action)
        perform { work.run() }
    }

    /// Runs `action` on the run loop at `date`, with a one-shot timer in its default mode.
    ///
    /// - Parameters:
    ///   - date: when to run the work.
    ///   - tolerance: how late it may run.
    ///   - options: unused.
    ///   - action: the work.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        let work = ScheduledAction(action)
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in work.run() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
    }

    /// Runs `action` on the run loop at `date` and every `interval` after, with a repeating timer in its
    /// default mode, until the returned cancellable is cancelled.
    ///
    /// - Parameters:
    ///   - date: when to run the work first.
    ///   - interval: the time between runs.
    ///   - tolerance: how late each run may be.
    ///   - options: unused.
    ///   - action: the work.
    /// - Returns: a cancellable that invalidates the timer (also when it is released, as Combine's).
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        scheduleRepeating(
            after: date.date,
            interval: interval.timeInterval,
            tolerance: tolerance.timeInterval,
            in: .default,
            action
        )
    }

    /// Adds a repeating timer that runs `action` in `mode`, from `date` every `interval`.
    ///
    /// - Returns: a cancellable that invalidates the timer.
    func scheduleRepeating(
        after date: Date,
        interval: TimeInterval,
        tolerance: TimeInterval,
        in mode: RunLoop.Mode,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let work = ScheduledAction(action)
        let timer = Timer(fire: date, interval: interval, repeats: true) { _ in work.run() }
        timer.tolerance = tolerance
        add(timer, forMode: mode)
        return AnyCancellable { timer.invalidate() }
    }
}
