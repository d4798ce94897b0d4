import CLibUV
import Ripple

extension EventLoop {
    /// A point in time on an event loop: nanoseconds on the monotonic clock that `uv_hrtime()` reads
    /// (`CLOCK_MONOTONIC`, counted from an arbitrary start such as boot; it never goes back and does not
    /// jump with the wall clock).
    public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable, CustomStringConvertible {
        /// Nanoseconds on the monotonic clock.
        public var nanoseconds: Int

        /// The point `nanoseconds` on the monotonic clock.
        ///
        /// - Parameter nanoseconds: nanoseconds on the monotonic clock.
        public init(nanoseconds: Int) {
            self.nanoseconds = nanoseconds
        }

        /// The current time on the monotonic clock.
        public static var now: SchedulerTimeType {
            SchedulerTimeType(nanoseconds: Int(truncatingIfNeeded: uv_hrtime()))
        }

        /// The signed distance from this point to `other`.
        ///
        /// - Parameter other: another point.
        /// - Returns: `other` minus this point.
        public func distance(to other: SchedulerTimeType) -> Stride {
            .nanoseconds(other.nanoseconds &- nanoseconds)
        }

        /// This point moved by `n`, clamped to the representable range.
        ///
        /// - Parameter n: the interval.
        /// - Returns: the point `n` later (earlier when negative).
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(nanoseconds: nanoseconds.addingClamped(n.magnitude))
        }

        /// The time in seconds on the monotonic clock, e.g. `"12.5s"`.
        public var description: String {
            "\(Double(nanoseconds) / 1_000_000_000)s"
        }

        /// A signed interval in nanoseconds. Literals are seconds, as for `DispatchQueue`'s stride.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable, CustomStringConvertible
        {
            /// Seconds, for float literals.
            public typealias FloatLiteralType = Double
            /// Seconds, for integer literals.
            public typealias IntegerLiteralType = Int
            /// Nanoseconds.
            public typealias Magnitude = Int

            /// The interval in nanoseconds.
            public var magnitude: Int

            private init(nanoseconds: Int) {
                magnitude = nanoseconds
            }

            /// `value` seconds.
            ///
            /// - Parameter value: seconds.
            public init(integerLiteral value: Int) {
                self = .seconds(value)
            }

            /// `value` seconds.
            ///
            /// - Parameter value: seconds.
            public init(floatLiteral value: Double) {
                self = .seconds(value)
            }

            /// `source` seconds, if they fit in nanoseconds.
            ///
            /// - Parameter source: seconds.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow else { return nil }
                magnitude = nanoseconds
            }

            /// The interval in seconds, e.g. `"0.25s"`.
            public var description: String {
                "\(Double(magnitude) / 1_000_000_000)s"
            }

            /// Orders intervals.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: whether `lhs` is the shorter.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The product of the two nanosecond counts (as `DispatchQueue`'s stride does).
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: the product.
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude.multipliedClamped(by: rhs.magnitude))
            }
            /// The sum of two intervals, clamped.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: the sum.
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude.addingClamped(rhs.magnitude))
            }
            /// The difference of two intervals, clamped.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: the difference.
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude.subtractingClamped(rhs.magnitude))
            }
            /// Subtracts in place.
            ///
            /// - Parameters:
            ///   - lhs: the interval changed.
            ///   - rhs: another interval.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies in place.
            ///
            /// - Parameters:
            ///   - lhs: the interval changed.
            ///   - rhs: another interval.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds in place.
            ///
            /// - Parameters:
            ///   - lhs: the interval changed.
            ///   - rhs: another interval.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// `s` seconds.
            ///
            /// - Parameter s: seconds.
            /// - Returns: the interval, clamped.
            public static func seconds(_ s: Int) -> Stride {
                Stride(nanoseconds: s.multipliedClamped(by: 1_000_000_000))
            }
            /// `s` seconds, to the nanosecond.
            ///
            /// - Parameter s: seconds.
            /// - Returns: the interval, clamped (0 for NaN).
            public static func seconds(_ s: Double) -> Stride {
                let nanoseconds = (s * 1_000_000_000).rounded()
                guard !nanoseconds.isNaN else { return Stride(nanoseconds: 0) }
                guard abs(nanoseconds) < Double(Int.max) else {
                    return Stride(nanoseconds: nanoseconds < 0 ? .min : .max)
                }
                return Stride(nanoseconds: Int(nanoseconds))
            }
            /// `ms` milliseconds.
            ///
            /// - Parameter ms: milliseconds.
            /// - Returns: the interval, clamped.
            public static func milliseconds(_ ms: Int) -> Stride {
                Stride(nanoseconds: ms.multipliedClamped(by: 1_000_000))
            }
            /// `us` microseconds.
            ///
            /// - Parameter us: microseconds.
            /// - Returns: the interval, clamped.
            public static func microseconds(_ us: Int) -> Stride {
                Stride(nanoseconds: us.multipliedClamped(by: 1_000))
            }
            /// `ns` nanoseconds.
            ///
            /// - Parameter ns: nanoseconds.
            /// - Returns: the interval.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }
        }
    }
}

extension Int {
    /// `self * factor`, or `Int.max`/`Int.min` when that overflows.
    fileprivate func multipliedClamped(by factor: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        guard overflow else { return product }
        return (self < 0) == (factor < 0) ? .max : .min
    }

    /// `self + other`, or `Int.max`/`Int.min` when that overflows.
    fileprivate func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, or `Int.max`/`Int.min` when that overflows.
    fileprivate func subtractingClamped(_ other: Int) -> Int {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other < 0 ? .max : .min
    }
}
