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
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                magnitude = value
            }

            /// Orders intervals.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The product of two intervals.
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &* rhs.magnitude) }
            /// The sum of two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &+ rhs.magnitude) }
            /// The difference of two intervals.
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude &- rhs.magnitude) }
            /// Subtracts in place.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies in place.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds in place.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// An interval of zero (the immediate scheduler has no time).
            public static func seconds(_ s: Int) -> Stride { Stride(0) }
            /// An interval of zero.
            public static func seconds(_ s: Double) -> Stride { Stride(0) }
            /// An interval of zero.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(0) }
            /// An interval of zero.
            public static func microseconds(_ us: Int) -> Stride { Stride(0) }
            /// An interval of zero.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(0) }
        }

        /// The same point: the immediate scheduler's time does not move.
        public func distance(to other: SchedulerTimeType) -> Stride { Stride(0) }
        /// The same point.
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
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// Runs `action` now, whatever `date` says.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        action()
    }

    /// Runs `action` once, now; the returned cancellable does nothing.
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
