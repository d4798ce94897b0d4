import Foundation
import Ripple

/// A point in time of a scheduler that keeps wall-clock time: a `Date`. It is the `SchedulerTimeType` of
/// `RunLoop` (`RunLoop.SchedulerTimeType`) and of `OperationQueue` (`OperationQueue.SchedulerTimeType`), with
/// the same members as Combine's; `Owner` keeps the two apart, as in Combine they are distinct types.
///
/// Its ``Stride`` counts seconds as a `TimeInterval`; literals are seconds.
public struct DateSchedulerTime<Owner>: Strideable, Codable, Hashable, Sendable {
    /// The point in time.
    public var date: Date

    /// The point in time `date`.
    ///
    /// - Parameter date: the point in time.
    public init(_ date: Date) {
        self.date = date
    }

    /// The interval from this time to `other`.
    ///
    /// - Parameter other: the later (or earlier) time.
    /// - Returns: the signed number of seconds from this time to `other`.
    public func distance(to other: Self) -> Stride {
        Stride(date.timeIntervalSinceReferenceDate.distance(to: other.date.timeIntervalSinceReferenceDate))
    }

    /// This time moved by `n`.
    ///
    /// - Parameter n: the interval to move by.
    /// - Returns: the moved time.
    public func advanced(by n: Stride) -> Self {
        Self(date + n.magnitude)
    }

    /// A signed interval between two times, in seconds.
    public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
        Hashable, Codable, Sendable
    {
        /// Seconds, for float literals.
        public typealias FloatLiteralType = TimeInterval
        /// Seconds, for integer literals (a `TimeInterval`, as in Combine).
        public typealias IntegerLiteralType = TimeInterval
        /// Seconds.
        public typealias Magnitude = TimeInterval

        /// The interval in seconds.
        public var magnitude: TimeInterval

        /// The interval in seconds.
        public var timeInterval: TimeInterval { magnitude }

        /// An interval of `timeInterval` seconds.
        ///
        /// - Parameter timeInterval: the number of seconds.
        public init(_ timeInterval: TimeInterval) {
            magnitude = timeInterval
        }

        /// An interval of `value` seconds.
        ///
        /// - Parameter value: the number of seconds.
        public init(floatLiteral value: TimeInterval) {
            magnitude = value
        }

        /// An interval of `value` seconds.
        ///
        /// - Parameter value: the number of seconds.
        public init(integerLiteral value: TimeInterval) {
            magnitude = value
        }

        /// An interval of `source` seconds, if a `TimeInterval` holds that number exactly.
        ///
        /// - Parameter source: the number of seconds.
        public init?<Source: BinaryInteger>(exactly source: Source) {
            guard let seconds = TimeInterval(exactly: source) else { return nil }
            magnitude = seconds
        }

        /// Whether `lhs` is shorter than `rhs`.
        ///
        /// - Parameters:
        ///   - lhs: an interval.
        ///   - rhs: another interval.
        /// - Returns: `true` when `lhs` has fewer seconds.
        public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }

        /// The product of two intervals' seconds.
        ///
        /// - Parameters:
        ///   - lhs: an interval.
        ///   - rhs: another interval.
        /// - Returns: an interval of `lhs.magnitude * rhs.magnitude` seconds.
        public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }

        /// The sum of two intervals.
        ///
        /// - Parameters:
        ///   - lhs: an interval.
        ///   - rhs: another interval.
        /// - Returns: their sum.
        public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }

        /// The difference of two intervals.
        ///
        /// - Parameters:
        ///   - lhs: an interval.
        ///   - rhs: the interval to subtract.
        /// - Returns: their difference.
        public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }

        /// Multiplies `lhs` by `rhs`.
        ///
        /// - Parameters:
        ///   - lhs: the interval to change.
        ///   - rhs: the factor.
        public static func *= (lhs: inout Stride, rhs: Stride) { lhs.magnitude *= rhs.magnitude }

        /// Adds `rhs` to `lhs`.
        ///
        /// - Parameters:
        ///   - lhs: the interval to change.
        ///   - rhs: the interval to add.
        public static func += (lhs: inout Stride, rhs: Stride) { lhs.magnitude += rhs.magnitude }

        /// Subtracts `rhs` from `lhs`.
        ///
        /// - Parameters:
        ///   - lhs: the interval to change.
        ///   - rhs: the interval to subtract.
        public static func -= (lhs: inout Stride, rhs: Stride) { lhs.magnitude -= rhs.magnitude }

        /// An interval of `s` seconds.
        ///
        /// - Parameter s: the number of seconds.
        /// - Returns: the interval.
        public static func seconds(_ s: Int) -> Stride { Stride(TimeInterval(s)) }

        /// An interval of `s` seconds.
        ///
        /// - Parameter s: the number of seconds.
        /// - Returns: the interval.
        public static func seconds(_ s: Double) -> Stride { Stride(s) }

        /// An interval of `ms` milliseconds.
        ///
        /// - Parameter ms: the number of milliseconds.
        /// - Returns: the interval.
        public static func milliseconds(_ ms: Int) -> Stride { Stride(TimeInterval(ms) / 1_000) }

        /// An interval of `us` microseconds.
        ///
        /// - Parameter us: the number of microseconds.
        /// - Returns: the interval.
        public static func microseconds(_ us: Int) -> Stride { Stride(TimeInterval(us) / 1_000_000) }

        /// An interval of `ns` nanoseconds.
        ///
        /// - Parameter ns: the number of nanoseconds.
        /// - Returns: the interval.
        public static func nanoseconds(_ ns: Int) -> Stride { Stride(TimeInterval(ns) / 1_000_000_000) }
    }
}
