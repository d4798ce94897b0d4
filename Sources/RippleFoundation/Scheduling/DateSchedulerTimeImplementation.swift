import Foundation
import Ripple

/// What `RunLoop.SchedulerTimeType` and `OperationQueue.SchedulerTimeType` share: a point in time that is a
/// `Date`, stepped by a ``_TimeIntervalSchedulerStride``. The two are distinct types, as in Combine (code may
/// extend one and not the other); this protocol only gives them one implementation.
public protocol _DateSchedulerTime: Strideable, Codable, Hashable, Sendable
where Stride: _TimeIntervalSchedulerStride {
    /// The point in time.
    var date: Date { get set }

    /// The point in time `date`.
    init(_ date: Date)
}

extension _DateSchedulerTime {
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
}

/// What the `Stride` of `RunLoop.SchedulerTimeType` and of `OperationQueue.SchedulerTimeType` share: a signed
/// number of seconds (a `TimeInterval`); literals are seconds. The two are distinct types, as in Combine; this
/// protocol only gives them one implementation.
public protocol _TimeIntervalSchedulerStride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
    ExpressibleByFloatLiteral, Hashable, Codable, Sendable
where Magnitude == TimeInterval, FloatLiteralType == TimeInterval, IntegerLiteralType == TimeInterval {
    /// The interval in seconds.
    var magnitude: TimeInterval { get set }

    /// An interval of `timeInterval` seconds.
    init(_ timeInterval: TimeInterval)
}

extension _TimeIntervalSchedulerStride {
    /// The interval in seconds.
    public var timeInterval: TimeInterval { magnitude }

    /// An interval of `value` seconds.
    ///
    /// - Parameter value: the number of seconds.
    public init(floatLiteral value: TimeInterval) {
        self.init(value)
    }

    /// An interval of `value` seconds.
    ///
    /// - Parameter value: the number of seconds.
    public init(integerLiteral value: TimeInterval) {
        self.init(value)
    }

    /// An interval of `source` seconds, if a `TimeInterval` holds that number exactly.
    ///
    /// - Parameter source: the number of seconds.
    public init?<Source: BinaryInteger>(exactly source: Source) {
        guard let seconds = TimeInterval(exactly: source) else { return nil }
        self.init(seconds)
    }

    /// Whether `lhs` is shorter than `rhs`.
    ///
    /// - Parameters:
    ///   - lhs: an interval.
    ///   - rhs: another interval.
    /// - Returns: `true` when `lhs` has fewer seconds.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }

    /// The product of two intervals' seconds.
    ///
    /// - Parameters:
    ///   - lhs: an interval.
    ///   - rhs: another interval.
    /// - Returns: an interval of `lhs.magnitude * rhs.magnitude` seconds.
    public static func * (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude * rhs.magnitude) }

    /// The sum of two intervals.
    ///
    /// - Parameters:
    ///   - lhs: an interval.
    ///   - rhs: another interval.
    /// - Returns: their sum.
    public static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude + rhs.magnitude) }

    /// The difference of two intervals.
    ///
    /// - Parameters:
    ///   - lhs: an interval.
    ///   - rhs: the interval to subtract.
    /// - Returns: their difference.
    public static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude - rhs.magnitude) }

    /// Multiplies `lhs` by `rhs`.
    ///
    /// - Parameters:
    ///   - lhs: the interval to change.
    ///   - rhs: the factor.
    public static func *= (lhs: inout Self, rhs: Self) { lhs.magnitude *= rhs.magnitude }

    /// Adds `rhs` to `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: the interval to change.
    ///   - rhs: the interval to add.
    public static func += (lhs: inout Self, rhs: Self) { lhs.magnitude += rhs.magnitude }

    /// Subtracts `rhs` from `lhs`.
    ///
    /// - Parameters:
    ///   - lhs: the interval to change.
    ///   - rhs: the interval to subtract.
    public static func -= (lhs: inout Self, rhs: Self) { lhs.magnitude -= rhs.magnitude }

    /// An interval of `s` seconds.
    ///
    /// - Parameter s: the number of seconds.
    /// - Returns: the interval.
    public static func seconds(_ s: Int) -> Self { Self(TimeInterval(s)) }

    /// An interval of `s` seconds.
    ///
    /// - Parameter s: the number of seconds.
    /// - Returns: the interval.
    public static func seconds(_ s: Double) -> Self { Self(s) }

    /// An interval of `ms` milliseconds.
    ///
    /// - Parameter ms: the number of milliseconds.
    /// - Returns: the interval.
    public static func milliseconds(_ ms: Int) -> Self { Self(TimeInterval(ms) / 1_000) }

    /// An interval of `us` microseconds.
    ///
    /// - Parameter us: the number of microseconds.
    /// - Returns: the interval.
    public static func microseconds(_ us: Int) -> Self { Self(TimeInterval(us) / 1_000_000) }

    /// An interval of `ns` nanoseconds.
    ///
    /// - Parameter ns: the number of nanoseconds.
    /// - Returns: the interval.
    public static func nanoseconds(_ ns: Int) -> Self { Self(TimeInterval(ns) / 1_000_000_000) }
}
