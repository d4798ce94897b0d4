/// A scheduler that runs every action at once, on the calling thread.
///
/// Scheduling for a later time runs the action immediately too; a repeating schedule runs its action
/// once. Its time does not move: every time is ``now``.
public struct ImmediateScheduler: Scheduler, Sendable {
    /// The immediate scheduler's time: a point that never moves.
    public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable {
        /// The immediate scheduler's interval type.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable
        {
            /// Seconds, for float literals.
            public typealias FloatLiteralType = Double
            /// Seconds, for integer literals.
            public typealias IntegerLiteralType = Int
            /// The magnitude type.
            public typealias Magnitude = Int

            /// The interval as a count.
            public var magnitude: Int

            /// An interval of `value` units.
            ///
            /// - Parameter value: The number of units.
            public init(_ value: Int) { magnitude = value }
            /// An interval of `value` units.
            ///
            /// - Parameter value: the literal.
            public init(integerLiteral value: Int) { magnitude = value }
            /// An interval of `value` units, truncated.
            ///
            /// - Parameter value: the literal.
            public init(floatLiteral value: Double) { magnitude = Int(value) }
            /// An interval from `source`, if it fits.
            ///
            /// - Parameter source: The number of units.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                magnitude = value
            }

            /// Orders intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: Whether `lhs` is less than `rhs`.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The product of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: The product.
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &* rhs.magnitude) }
            /// The sum of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: The sum.
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &+ rhs.magnitude) }
            /// The difference of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: The difference.
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &- rhs.magnitude) }
            /// Subtracts in place.
            ///
            /// - Parameters:
            ///   - lhs: The interval to change in place.
            ///   - rhs: The interval on the right.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies in place.
            ///
            /// - Parameters:
            ///   - lhs: The interval to change in place.
            ///   - rhs: The interval on the right.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds in place.
            ///
            /// - Parameters:
            ///   - lhs: The interval to change in place.
            ///   - rhs: The interval on the right.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// An interval of zero (the immediate scheduler has no time).
            ///
            /// - Parameter s: The number of seconds.
            /// - Returns: An interval of zero.
            public static func seconds(_ s: Int) -> Stride { Stride(0) }
            /// An interval of zero.
            ///
            /// - Parameter s: The number of seconds.
            /// - Returns: An interval of zero.
            public static func seconds(_ s: Double) -> Stride { Stride(0) }
            /// An interval of zero.
            ///
            /// - Parameter ms: The number of milliseconds.
            /// - Returns: An interval of zero.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(0) }
            /// An interval of zero.
            ///
            /// - Parameter us: The number of microseconds.
            /// - Returns: An interval of zero.
            public static func microseconds(_ us: Int) -> Stride { Stride(0) }
            /// An interval of zero.
            ///
            /// - Parameter ns: The number of nanoseconds.
            /// - Returns: An interval of zero.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(0) }
        }

        /// The same point: the immediate scheduler's time does not move.
        ///
        /// - Parameter other: The time to measure to.
        /// - Returns: Zero.
        public func distance(to other: SchedulerTimeType) -> Stride { Stride(0) }
        /// The same point.
        ///
        /// - Parameter n: The interval to move by.
        /// - Returns: This same point.
        public func advanced(by n: Stride) -> SchedulerTimeType { self }
    }

    /// The immediate scheduler takes no options.
    public typealias SchedulerOptions = Never

    /// The shared instance.
    public static let shared = ImmediateScheduler()

    /// The only point in time.
    public var now: SchedulerTimeType { SchedulerTimeType() }

    /// Zero.
    public var minimumTolerance: SchedulerTimeType.Stride { SchedulerTimeType.Stride(0) }

    /// Runs `action` now.
    ///
    /// - Parameters:
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// Runs `action` now, whatever `date` says.
    ///
    /// - Parameters:
    ///   - date: When to run the work.
    ///   - tolerance: How much later than asked the work may run.
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        action()
    }

    /// Runs `action` once, now; the returned cancellable does nothing.
    ///
    /// - Parameters:
    ///   - date: When to run the work first.
    ///   - interval: The time between two runs.
    ///   - tolerance: How much later than asked the work may run.
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    /// - Returns: A cancellable that does nothing.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        action()
        return Subscriptions.empty
    }
}
