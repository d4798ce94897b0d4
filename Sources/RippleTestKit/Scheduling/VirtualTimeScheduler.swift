/// A scheduler whose clock moves only when a test moves it: the tool every time-based test uses.
///
/// Scheduled actions run, in time order (and in scheduling order for equal times), on the thread that
/// calls ``advance(by:)``, ``advance(to:)`` or ``run()``; nothing runs on its own. Time starts at zero.
///
/// ```swift
/// let scheduler = VirtualTimeScheduler()
/// subject.debounce(for: .seconds(1), scheduler: scheduler).sink { … }
/// subject.send(1)
/// scheduler.advance(by: .milliseconds(999))   // nothing yet
/// scheduler.advance(by: .milliseconds(1))     // the debounced value arrives
/// ```
///
/// Scheduling is safe from any thread.
public final class VirtualTimeScheduler: Scheduler, Sendable {
    /// A point in virtual time: nanoseconds since the scheduler's start.
    public struct SchedulerTimeType: Strideable, Hashable, Codable, Sendable, CustomStringConvertible {
        /// Nanoseconds since the start of virtual time.
        public var nanoseconds: Int

        /// The point `nanoseconds` after the start.
        ///
        /// - Parameter nanoseconds: nanoseconds since the start.
        public init(nanoseconds: Int) {
            self.nanoseconds = nanoseconds
        }

        /// The distance from this point to `other`.
        ///
        /// - Parameter other: another point.
        /// - Returns: `other` minus this point.
        public func distance(to other: SchedulerTimeType) -> Stride {
            .nanoseconds(other.nanoseconds &- nanoseconds)
        }

        /// This point moved by `n`.
        ///
        /// - Parameter n: the interval.
        /// - Returns: the point `n` later (earlier when negative).
        public func advanced(by n: Stride) -> SchedulerTimeType {
            SchedulerTimeType(nanoseconds: nanoseconds &+ n.magnitude)
        }

        /// The time as seconds since the start, e.g. `"1.5s"`.
        public var description: String {
            "\(Double(nanoseconds) / 1_000_000_000)s"
        }

        /// A signed interval of virtual time in nanoseconds; literals are seconds.
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

            private init(nanoseconds: Int) { magnitude = nanoseconds }

            /// `value` seconds.
            ///
            /// - Parameter value: seconds.
            public init(integerLiteral value: Int) { self = .seconds(value) }
            /// `value` seconds.
            ///
            /// - Parameter value: seconds.
            public init(floatLiteral value: Double) { self = .seconds(value) }
            /// `source` seconds, if they fit.
            ///
            /// - Parameter source: seconds.
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let seconds = Int(exactly: source) else { return nil }
                let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
                guard !overflow else { return nil }
                magnitude = nanoseconds
            }

            /// The interval as seconds, e.g. `"0.25s"`.
            public var description: String { "\(Double(magnitude) / 1_000_000_000)s" }

            /// Orders intervals.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: whether `lhs` is the shorter.
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            /// The product of the nanosecond counts.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: the product.
            public static func * (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &* rhs.magnitude)
            }
            /// The sum of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: the sum.
            public static func + (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &+ rhs.magnitude)
            }
            /// The difference of two intervals.
            ///
            /// - Parameters:
            ///   - lhs: an interval.
            ///   - rhs: another interval.
            /// - Returns: the difference.
            public static func - (lhs: Stride, rhs: Stride) -> Stride {
                Stride(nanoseconds: lhs.magnitude &- rhs.magnitude)
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
            /// - Returns: the interval.
            public static func seconds(_ s: Int) -> Stride { Stride(nanoseconds: s &* 1_000_000_000) }
            /// `s` seconds, to the nanosecond.
            ///
            /// - Parameter s: seconds.
            /// - Returns: the interval.
            public static func seconds(_ s: Double) -> Stride {
                let nanoseconds = (s * 1_000_000_000).rounded()
                guard nanoseconds.isFinite, abs(nanoseconds) < Double(Int.max) else {
                    return Stride(nanoseconds: nanoseconds < 0 ? .min : .max)
                }
                return Stride(nanoseconds: Int(nanoseconds))
            }
            /// `ms` milliseconds.
            ///
            /// - Parameter ms: milliseconds.
            /// - Returns: the interval.
            public static func milliseconds(_ ms: Int) -> Stride { Stride(nanoseconds: ms &* 1_000_000) }
            /// `us` microseconds.
            ///
            /// - Parameter us: microseconds.
            /// - Returns: the interval.
            public static func microseconds(_ us: Int) -> Stride { Stride(nanoseconds: us &* 1_000) }
            /// `ns` nanoseconds.
            ///
            /// - Parameter ns: nanoseconds.
            /// - Returns: the interval.
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }
        }
    }

    /// The virtual-time scheduler takes no options.
    public typealias SchedulerOptions = Never

    /// What a queued entry runs: a one-shot action, or the next run of the repeating action with this
    /// identifier (looked up in `repeats`, so that cancelling it releases the action at once).
    private enum Work {
        case once(() -> Void)
        case repeating(UInt64)
    }

    private struct Item {
        let date: SchedulerTimeType
        let sequence: UInt64
        let work: Work
    }

    private struct RepeatingAction {
        let interval: SchedulerTimeType.Stride
        let action: () -> Void
    }

    private let lock = Lock()
    private nonisolated(unsafe) var currentTime: SchedulerTimeType
    private nonisolated(unsafe) var items: [Item] = []
    private nonisolated(unsafe) var nextSequence: UInt64 = 0
    /// The repeating actions not cancelled yet, by identifier.
    private nonisolated(unsafe) var repeats: [UInt64: RepeatingAction] = [:]

    /// Creates a scheduler whose clock reads `now`.
    ///
    /// - Parameter now: the clock's first reading.
    public init(now: SchedulerTimeType = SchedulerTimeType(nanoseconds: 0)) {
        currentTime = now
    }

    /// The virtual time.
    public var now: SchedulerTimeType { lock.withLock { currentTime } }

    /// Zero: virtual time is exact.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// The number of actions waiting to run.
    public var scheduledCount: Int { lock.withLock { items.count } }

    /// Queues `action` to run at the current time, on the next `advance` or `run`.
    ///
    /// - Parameters:
    ///   - options: none (the scheduler takes no options).
    ///   - action: what runs.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        lock.withLock { enqueue(at: currentTime, .once(action)) }
    }

    /// Queues `action` to run when the clock reaches `date` (at once on the next advance if `date` has passed).
    ///
    /// - Parameters:
    ///   - date: when it runs.
    ///   - tolerance: ignored: virtual time is exact.
    ///   - options: none (the scheduler takes no options).
    ///   - action: what runs.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        lock.withLock { enqueue(at: date, .once(action)) }
    }

    /// Queues `action` to run at `date` and every `interval` after (at least one nanosecond), until the
    /// returned cancellable is cancelled. Cancelling releases `action` at once, as a timer that stops does.
    ///
    /// - Parameters:
    ///   - date: when it first runs.
    ///   - interval: the time between two runs.
    ///   - tolerance: ignored: virtual time is exact.
    ///   - options: none (the scheduler takes no options).
    ///   - action: what runs.
    /// - Returns: what stops it.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let repeating = RepeatingAction(interval: Swift.max(interval, .nanoseconds(1)), action: action)
        let identifier = lock.withLock { () -> UInt64 in
            let identifier = nextSequence
            nextSequence += 1
            repeats[identifier] = repeating
            enqueue(at: date, .repeating(identifier))
            return identifier
        }
        return AnyCancellable { [weak self] in self?.cancelRepeat(identifier) }
    }

    /// Moves the clock forward by `stride`, running every action due by then, in time order; the clock
    /// reads each action's time while it runs. Actions scheduled while advancing run too if they fall due.
    ///
    /// - Parameter stride: how far.
    public func advance(by stride: SchedulerTimeType.Stride = .nanoseconds(0)) {
        advance(to: now.advanced(by: stride))
    }

    /// Moves the clock to `instant` (never backwards), running every action due by then, in time order.
    ///
    /// - Parameter instant: the new time.
    public func advance(to instant: SchedulerTimeType) {
        while true {
            let due: Item? = lock.withLock {
                guard let index = indexOfEarliest(), items[index].date <= instant else {
                    currentTime = Swift.max(currentTime, instant)
                    return nil
                }
                let item = items.remove(at: index)
                currentTime = Swift.max(currentTime, item.date)
                return item
            }
            guard let due else { return }
            switch due.work {
            case .once(let action): action()
            case .repeating(let identifier): fire(identifier)
            }
        }
    }

    /// Runs actions until none is left, moving the clock to each one's time. Repeating actions run
    /// until cancelled, so cancel them first (or use ``advance(to:)``).
    public func run() {
        while let next = lock.withLock({ indexOfEarliest().map { items[$0].date } }) {
            advance(to: next)
        }
    }

    // MARK: Private

    /// Runs the repeating action `identifier` unless it was cancelled, then queues its next run unless it
    /// was cancelled while running.
    private func fire(_ identifier: UInt64) {
        guard let repeating = lock.withLock({ repeats[identifier] }) else { return }
        repeating.action()
        lock.withLock {
            guard let interval = repeats[identifier]?.interval else { return }
            enqueue(at: currentTime.advanced(by: interval), .repeating(identifier))
        }
    }

    /// Forgets the repeating action `identifier` and its queued run; the action is released after the lock,
    /// since releasing it may run code (a deinit) that schedules.
    private func cancelRepeat(_ identifier: UInt64) {
        let released = lock.withLock { () -> RepeatingAction? in
            items.removeAll {
                if case .repeating(identifier) = $0.work { return true }
                return false
            }
            return repeats.removeValue(forKey: identifier)
        }
        withExtendedLifetime(released) {}
    }

    /// Lock held.
    private func enqueue(at date: SchedulerTimeType, _ work: Work) {
        items.append(Item(date: date, sequence: nextSequence, work: work))
        nextSequence += 1
    }

    /// Lock held.
    private func indexOfEarliest() -> Int? {
        guard !items.isEmpty else { return nil }
        var best = 0
        for index in items.indices.dropFirst() {
            let item = items[index]
            let current = items[best]
            if item.date < current.date || (item.date == current.date && item.sequence < current.sequence) {
                best = index
            }
        }
        return best
    }
}
