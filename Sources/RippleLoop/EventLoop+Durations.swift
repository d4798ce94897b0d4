import Ripple

extension Duration {
    /// The duration in whole nanoseconds, clamped to 0 … `Int.max`.
    package var clampedNanoseconds: Int {
        // Compared first: `components` traps when the whole seconds do not fit in an Int64, as for a sum such
        // as a caller's `.seconds(Int64.max)` plus a margin.
        guard self > .zero else { return 0 }
        guard self < .nanoseconds(Int.max) else { return Int.max }
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}

extension EventLoop {
    /// Runs `action` on the loop thread after `delay`, unless the returned cancellable is cancelled or
    /// released first (see ``scheduleCancellable(after:_:)``). A negative delay is no delay.
    ///
    /// - Parameters:
    ///   - delay: how long from now.
    ///   - action: what runs.
    /// - Returns: what cancels it; releasing it cancels too.
    public func after(_ delay: Duration, _ action: @escaping () -> Void) -> AnyCancellable {
        scheduleCancellable(after: now.advanced(by: .nanoseconds(delay.clampedNanoseconds)), action)
    }

    /// Runs `action` on the loop thread every `interval` (the first time after one interval), until the
    /// returned cancellable is cancelled or released. Intervals under a millisecond (libuv's resolution)
    /// are a millisecond.
    ///
    /// - Parameters:
    ///   - interval: the time between two runs.
    ///   - action: what runs.
    /// - Returns: what stops it; releasing it stops it too.
    public func every(_ interval: Duration, _ action: @escaping () -> Void) -> any Cancellable {
        let stride = EventLoop.SchedulerTimeType.Stride.nanoseconds(Swift.max(interval.clampedNanoseconds, 1_000_000))
        return schedule(after: now.advanced(by: stride), interval: stride, tolerance: .zero, options: nil, action)
    }

    /// Runs `body` on the loop thread and returns its result (or throws its error) to the awaiting task.
    /// Never returns if the loop stops before running it.
    ///
    /// - Parameter body: what runs on the loop thread.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw.
    public func perform<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            schedule {
                continuation.resume(returning: Result { () throws(E) -> T in try body() })
            }
        }
        return try result.get()
    }
}

extension EventLoop {
    /// Runs `action` on the loop thread once after `delay` (it cannot be cancelled: `action` checks
    /// whether it still applies). Dropped if the loop stops first.
    ///
    /// - Parameters:
    ///   - delay: how long from now.
    ///   - action: what runs.
    public func later(_ delay: Duration, _ action: @escaping () -> Void) {
        schedule(
            after: now.advanced(by: .nanoseconds(delay.clampedNanoseconds)), tolerance: .zero, options: nil, action)
    }
}
