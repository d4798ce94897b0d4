import Foundation
import Ripple

/// An operation queue runs scheduled work as operations, as in Combine: at once as a block operation, or
/// later as an operation that is in the queue from the start and becomes ready at its time (so
/// `cancelAllOperations()` cancels it, and `waitUntilAllOperationsAreFinished()` waits for it).
extension OperationQueue: Scheduler {
    /// A point in time on an operation queue: a `Date`, as in Combine.
    public struct SchedulerTimeType: _DateSchedulerTime {
        /// The point in time.
        public var date: Date

        /// The point in time `date`.
        ///
        /// - Parameter date: the point in time.
        public init(_ date: Date) {
            self.date = date
        }

        /// A signed interval between two times on an operation queue, in seconds; literals are seconds.
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

    /// Options for work scheduled on an operation queue: none, as in Combine.
    public struct SchedulerOptions: Sendable {}

    /// The current time.
    public var now: SchedulerTimeType {
        SchedulerTimeType(Date())
    }

    /// Zero.
    public var minimumTolerance: SchedulerTimeType.Stride {
        SchedulerTimeType.Stride(0)
    }

    /// Adds `action` to the queue as a block operation.
    ///
    /// - Parameters:
    ///   - options: unused.
    ///   - action: the work.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = ScheduledAction(action)
        addOperation(BlockOperation { work.run() })
    }

    /// Adds `action` to the queue as an operation that becomes ready at `date`.
    ///
    /// - Parameters:
    ///   - date: when the work becomes ready.
    ///   - tolerance: unused.
    ///   - options: unused.
    ///   - action: the work.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        DelayedOperation(at: date.date, repeating: nil, action: ScheduledAction(action)).add(to: self)
    }

    /// Adds `action` to the queue as an operation that becomes ready at `date`; each time it runs, the
    /// next one is added, ready `interval` after the previous one's time, until the returned cancellable is
    /// cancelled (or the pending operation is, as by `cancelAllOperations()`).
    ///
    /// - Parameters:
    ///   - date: when the work first becomes ready.
    ///   - interval: the time between runs.
    ///   - tolerance: unused.
    ///   - options: unused.
    ///   - action: the work.
    /// - Returns: a cancellable that cancels the pending operation and ends the repetition (also when it is
    ///   released, as Combine's).
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let repetition = DelayedOperation.Repetition(queue: self, interval: interval.timeInterval)
        let first = DelayedOperation(at: date.date, repeating: repetition, action: ScheduledAction(action))
        repetition.pending(first)
        first.add(to: self)
        return AnyCancellable(repetition)
    }
}
