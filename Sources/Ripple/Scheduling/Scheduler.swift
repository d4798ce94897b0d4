/// A type that runs closures now or at a time, as Combine's `Scheduler`.
///
/// Time operators (`delay`, `debounce`, `timeout`, …) and `receive(on:)` / `subscribe(on:)` take a
/// scheduler; tests pass RippleTestKit's `VirtualTimeScheduler` to control time exactly.
public protocol Scheduler<SchedulerTimeType> {
    /// The scheduler's notion of a point in time.
    associatedtype SchedulerTimeType: Strideable where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
    /// Options a scheduler accepts for each scheduled closure.
    associatedtype SchedulerOptions

    /// The scheduler's current time.
    var now: SchedulerTimeType { get }

    /// The smallest tolerance the scheduler honours.
    var minimumTolerance: SchedulerTimeType.Stride { get }

    /// Runs `action` as soon as possible.
    ///
    /// - Parameters:
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void)

    /// Runs `action` once at `date` (or later, within `tolerance`).
    ///
    /// - Parameters:
    ///   - date: When to run the work.
    ///   - tolerance: How much later than asked the work may run.
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    )

    /// Runs `action` at `date` and then every `interval` until the returned cancellable is cancelled.
    ///
    /// - Parameters:
    ///   - date: When to run the work first.
    ///   - interval: The time between two runs.
    ///   - tolerance: How much later than asked the work may run.
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    /// - Returns: A cancellable that stops the repetitions.
    func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable
}

extension Scheduler {
    /// Runs `action` as soon as possible, with no options.
    ///
    /// - Parameter action: The work to run.
    @inlinable
    public func schedule(_ action: @escaping () -> Void) {
        schedule(options: nil, action)
    }

    /// Runs `action` once at `date`, with the minimum tolerance and no options.
    ///
    /// - Parameters:
    ///   - date: When to run the work.
    ///   - action: The work to run.
    @inlinable
    public func schedule(after date: SchedulerTimeType, _ action: @escaping () -> Void) {
        schedule(after: date, tolerance: minimumTolerance, options: nil, action)
    }

    /// Runs `action` once at `date` within `tolerance`, with no options.
    ///
    /// - Parameters:
    ///   - date: When to run the work.
    ///   - tolerance: How much later than asked the work may run.
    ///   - action: The work to run.
    @inlinable
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) {
        schedule(after: date, tolerance: tolerance, options: nil, action)
    }

    /// Runs `action` at `date` and every `interval` after, within `tolerance`, until cancelled.
    ///
    /// - Parameters:
    ///   - date: When to run the work first.
    ///   - interval: The time between two runs.
    ///   - tolerance: How much later than asked the work may run.
    ///   - action: The work to run.
    /// - Returns: A cancellable that stops the repetitions.
    @inlinable
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
    }

    /// Runs `action` at `date` and every `interval` after, until cancelled.
    ///
    /// - Parameters:
    ///   - date: When to run the work first.
    ///   - interval: The time between two runs.
    ///   - action: The work to run.
    /// - Returns: A cancellable that stops the repetitions.
    @inlinable
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        schedule(after: date, interval: interval, tolerance: minimumTolerance, options: nil, action)
    }
}
