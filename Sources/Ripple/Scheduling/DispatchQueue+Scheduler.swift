import Dispatch

extension DispatchQueue: Scheduler {
    /// A point in time on a dispatch queue: a `DispatchTime`, as in Combine.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time.
        public var dispatchTime: DispatchTime

        /// The point `time`.
        ///
        /// - Parameter time: The dispatch time.
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// The signed distance in nanoseconds from this time to `other`, as Combine measures it: a distance
        /// too large for `Int` (either way, as to or from `DispatchTime.distantFuture`) is `Int.max`
        /// nanoseconds.
        ///
        /// - Parameter other: The time to measure to.
        /// - Returns: The signed distance in nanoseconds.
        public func distance(to other: SchedulerTimeType) -> Stride {
            let start = dispatchTime.rawValue
            let end = other.dispatchTime.rawValue
            let (magnitude, isNegative) = end >= start ? (end &- start, false) : (start &- end, true)
            guard magnitude <= UInt64(Int.max) else { return Stride(nanoseconds: .max) }
            return Stride(nanoseconds: isNegative ? -Int(magnitude) : Int(magnitude))
        }

        /// This time moved by `n`, as Dispatch adds intervals (and Combine with it): `Int.max` nanoseconds is
        /// `DispatchTime.distantFuture`, a sum past the end of the clock is `distantFuture`, and one before its
        /// start is the earliest time Dispatch represents (1 ns).
        ///
        /// - Parameter n: The interval to move by.
        /// - Returns: The moved time.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            n.magnitude == .max
                ? SchedulerTimeType(.distantFuture) : SchedulerTimeType(dispatchTime + .nanoseconds(n.magnitude))
        }

        /// Decodes the time from its uptime in nanoseconds.
        ///
        /// - Parameter decoder: the decoder to read from.
        /// - Throws: `DecodingError` when the data does not have this form.
        public init(from decoder: any Decoder) throws {
            let nanoseconds = try decoder.singleValueContainer().decode(UInt64.self)
            dispatchTime = DispatchTime(uptimeNanoseconds: nanoseconds)
        }

        /// Encodes the time as its uptime in nanoseconds.
        ///
        /// - Parameter encoder: the encoder to write to.
        /// - Throws: the encoder's error.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// Hashes the uptime.
        ///
        /// - Parameter hasher: The hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.uptimeNanoseconds)
        }

        /// Whether two times are the same uptime.
        ///
        /// - Parameters:
        ///   - lhs: a value.
        ///   - rhs: another value.
        /// - Returns: whether they are equal.
        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime.uptimeNanoseconds == rhs.dispatchTime.uptimeNanoseconds
        }

        /// A signed interval between dispatch times, in nanoseconds. Literals are seconds.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric, ExpressibleByFloatLiteral,
            Hashable, Codable, Sendable
        {
            /// Seconds, for float literals.
            public typealias FloatLiteralType = Double
            /// Seconds, for integer literals.
            public typealias IntegerLiteralType = Int
            /// Nanoseconds.
            public typealias Magnitude = Int

            /// The interval in nanoseconds, stored as Combine stores it (so that it encodes as Combine's does,
            /// `{"_nanoseconds": n}`).
            private var _nanoseconds: Int64

            /// The interval in nanoseconds.
            public var magnitude: Int {
                get { Int(_nanoseconds) }
                set { _nanoseconds = Int64(newValue) }
            }

            /// The interval as a `DispatchTimeInterval` (nanoseconds).
            public var timeInterval: DispatchTimeInterval {
                .nanoseconds(magnitude)
            }

            fileprivate init(nanoseconds: Int) {
                _nanoseconds = Int64(nanoseconds)
            }

            /// The interval `timeInterval`; `.never` is the largest interval.
            ///
            /// - Parameter timeInterval: The dispatch time interval.
            public init(_ timeInterval: DispatchTimeInterval) {
                switch timeInterval {
                case .seconds(let s): self = .seconds(s)
                case .milliseconds(let ms): self = .milliseconds(ms)
                case .microseconds(let us): self = .microseconds(us)
                case .nanoseconds(let ns): self = .nanoseconds(ns)
                case .never: self = .nanoseconds(.max)
                @unknown default: self = .nanoseconds(.max)
                }
            }

            /// `value` seconds.
            ///
            /// - Parameter value: the literal.
            public init(floatLiteral value: Double) {
                self = .seconds(value)
            }

            /// `value` seconds.
            ///
            /// - Parameter value: the literal.
            public init(integerLiteral value: Int) {
                self = .seconds(value)
            }

            /// `source` seconds (clamped to the largest or smallest interval, as in Combine), if `source` fits
            /// in an `Int`.
            ///
            /// - Parameter source: The number of seconds.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                self = .seconds(seconds)
            }

            /// Orders intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: Whether `lhs` is less than `rhs`.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// Zero, as Combine's product of two dispatch intervals is (whatever their lengths).
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: Zero.
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: 0)
            }
            /// The sum of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: The sum.
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &+ rhs.magnitude)
            }
            /// The difference of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: The interval on the left.
            ///   - rhs: The interval on the right.
            /// - Returns: The difference.
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &- rhs.magnitude)
            }
            /// Subtracts in place.
            ///
            /// - Parameters:
            ///   - lhs: The interval to change in place.
            ///   - rhs: The interval on the right.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Sets `lhs` to zero, as Combine's in-place product of two dispatch intervals does.
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

            /// `s` seconds.
            ///
            /// - Parameter s: The number of seconds.
            /// - Returns: The interval.
            public static func seconds(_ s: Int) -> Stride {
                Stride(nanoseconds: s.multipliedClamped(by: 1_000_000_000))
            }
            /// `s` seconds, to the nanosecond.
            ///
            /// - Parameter s: The number of seconds.
            /// - Returns: The interval.
            public static func seconds(_ s: Double) -> Stride {
                Stride(nanoseconds: Int(clampingNanoseconds: s * 1_000_000_000))
            }
            /// `ms` milliseconds.
            ///
            /// - Parameter ms: The number of milliseconds.
            /// - Returns: The interval.
            public static func milliseconds(_ ms: Int) -> Stride {
                Stride(nanoseconds: ms.multipliedClamped(by: 1_000_000))
            }
            /// `us` microseconds.
            ///
            /// - Parameter us: The number of microseconds.
            /// - Returns: The interval.
            public static func microseconds(_ us: Int) -> Stride {
                Stride(nanoseconds: us.multipliedClamped(by: 1_000))
            }
            /// `ns` nanoseconds.
            ///
            /// - Parameter ns: The number of nanoseconds.
            /// - Returns: The interval.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }
        }
    }

    /// Options for work scheduled on a queue, as in Combine.
    public struct SchedulerOptions {
        /// The quality of service the work runs at.
        public var qos: DispatchQoS
        /// Flags for the work item.
        public var flags: DispatchWorkItemFlags
        /// A group the work is part of.
        public var group: DispatchGroup?

        /// Options with the given quality of service, flags and group.
        ///
        /// - Parameters:
        ///   - qos: the quality of service the work runs at.
        ///   - flags: Flags for the work item.
        ///   - group: a group the work is part of.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// The current time.
    public var now: SchedulerTimeType {
        SchedulerTimeType(DispatchTime.now())
    }

    /// Zero: dispatch honours no tolerance below its own leeway.
    public var minimumTolerance: SchedulerTimeType.Stride {
        SchedulerTimeType.Stride(nanoseconds: 0)
    }

    /// Runs `action` asynchronously on this queue.
    ///
    /// - Parameters:
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = ScheduledAction(action)
        let options = options ?? SchedulerOptions()
        async(group: options.group, qos: options.qos, flags: options.flags) { work.run() }
    }

    /// Runs `action` on this queue at `date`.
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
        let work = ScheduledAction(action)
        let options = options ?? SchedulerOptions()
        asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags) { work.run() }
    }

    /// Runs `action` on this queue at `date` and every `interval` after, on a dispatch timer, until the
    /// returned cancellable is cancelled.
    ///
    /// - Parameters:
    ///   - date: When to run the work first.
    ///   - interval: The time between two runs.
    ///   - tolerance: How much later than asked the work may run.
    ///   - options: The scheduler's options, if it takes any.
    ///   - action: The work to run.
    /// - Returns: A cancellable that stops the repetitions.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let work = ScheduledAction(action)
        let timer = DispatchSource.makeTimerSource(queue: self)
        timer.setEventHandler { work.run() }
        timer.schedule(
            deadline: date.dispatchTime,
            repeating: .nanoseconds(Swift.max(1, interval.magnitude)),
            leeway: .nanoseconds(Swift.max(0, tolerance.magnitude))
        )
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}

extension Int {
    /// `self * factor`, or `Int.max`/`Int.min` when that overflows.
    fileprivate func multipliedClamped(by factor: Int) -> Int {
        let (product, overflow) = multipliedReportingOverflow(by: factor)
        guard overflow else { return product }
        return (self < 0) == (factor < 0) ? .max : .min
    }

    /// `value` rounded to an integer, clamped to `Int`'s range (`NaN` gives zero).
    fileprivate init(clampingNanoseconds value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Int.max) {
            self = .max
        } else if value <= Double(Int.min) {
            self = .min
        } else {
            self = Int(value.rounded())
        }
    }
}
