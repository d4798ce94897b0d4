import Dispatch

extension DispatchQueue: Scheduler {
    /// A point in time on a dispatch queue: a `DispatchTime`, as in Combine.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time.
        public var dispatchTime: DispatchTime

        /// The point `time`.
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// The signed distance in nanoseconds from this time to `other`.
        public func distance(to other: SchedulerTimeType) -> Stride {
            let start = Int64(truncatingIfNeeded: dispatchTime.uptimeNanoseconds)
            let end = Int64(truncatingIfNeeded: other.dispatchTime.uptimeNanoseconds)
            return Stride(nanoseconds: Int(end &- start))
        }

        /// This time moved by `n`; a time before the clock's start is the start.
        public func advanced(by n: Stride) -> SchedulerTimeType {
            let base = Int64(truncatingIfNeeded: dispatchTime.uptimeNanoseconds)
            let moved = base.addingReportingOverflow(Int64(n.magnitude))
            let nanoseconds = moved.overflow ? (n.magnitude > 0 ? Int64.max : 0) : Swift.max(0, moved.partialValue)
            return SchedulerTimeType(DispatchTime(uptimeNanoseconds: UInt64(nanoseconds)))
        }

        /// Decodes the time from its uptime in nanoseconds.
        public init(from decoder: any Decoder) throws {
            let nanoseconds = try decoder.singleValueContainer().decode(UInt64.self)
            dispatchTime = DispatchTime(uptimeNanoseconds: nanoseconds)
        }

        /// Encodes the time as its uptime in nanoseconds.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        /// Hashes the uptime.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.uptimeNanoseconds)
        }

        /// Whether two times are the same uptime.
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

            /// The interval in nanoseconds.
            public var magnitude: Int

            /// The interval as a `DispatchTimeInterval` (nanoseconds).
            public var timeInterval: DispatchTimeInterval {
                .nanoseconds(magnitude)
            }

            fileprivate init(nanoseconds: Int) {
                magnitude = nanoseconds
            }

            /// The interval `timeInterval`; `.never` is the largest interval.
            public init(_ timeInterval: DispatchTimeInterval) {
                switch timeInterval {
                case .seconds(let s): magnitude = s.multipliedClamped(by: 1_000_000_000)
                case .milliseconds(let ms): magnitude = ms.multipliedClamped(by: 1_000_000)
                case .microseconds(let us): magnitude = us.multipliedClamped(by: 1_000)
                case .nanoseconds(let ns): magnitude = ns
                case .never: magnitude = .max
                @unknown default: magnitude = .max
                }
            }

            /// `value` seconds.
            public init(floatLiteral value: Double) {
                magnitude = Int(clampingNanoseconds: value * 1_000_000_000)
            }

            /// `value` seconds.
            public init(integerLiteral value: Int) {
                magnitude = value.multipliedClamped(by: 1_000_000_000)
            }

            /// `source` seconds, if they fit in nanoseconds.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow else { return nil }
                magnitude = nanoseconds
            }

            /// Orders intervals.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The product of two intervals' nanosecond counts.
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &* rhs.magnitude)
            }
            /// The sum of two intervals.
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &+ rhs.magnitude)
            }
            /// The difference of two intervals.
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &- rhs.magnitude)
            }
            /// Subtracts in place.
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            /// Multiplies in place.
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            /// Adds in place.
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// `s` seconds.
            public static func seconds(_ s: Int) -> Stride {
                Stride(nanoseconds: s.multipliedClamped(by: 1_000_000_000))
            }
            /// `s` seconds, to the nanosecond.
            public static func seconds(_ s: Double) -> Stride {
                Stride(nanoseconds: Int(clampingNanoseconds: s * 1_000_000_000))
            }
            /// `ms` milliseconds.
            public static func milliseconds(_ ms: Int) -> Stride {
                Stride(nanoseconds: ms.multipliedClamped(by: 1_000_000))
            }
            /// `us` microseconds.
            public static func microseconds(_ us: Int) -> Stride {
                Stride(nanoseconds: us.multipliedClamped(by: 1_000))
            }
            /// `ns` nanoseconds.
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
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = ScheduledAction(action)
        let options = options ?? SchedulerOptions()
        async(group: options.group, qos: options.qos, flags: options.flags) { work.run() }
    }

    /// Runs `action` on this queue at `date`.
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
