import Ripple

extension EventLoop: Scheduler {
    /// The loop takes no options.
    public typealias SchedulerOptions = Never

    /// The current time on the monotonic clock (`uv_hrtime`).
    public var now: SchedulerTimeType {
        .now
    }

    /// One millisecond: libuv's timer resolution. Timers fire at their deadline or up to a few
    /// milliseconds later, never earlier.
    public var minimumTolerance: SchedulerTimeType.Stride {
        .milliseconds(1)
    }

    /// Runs `action` on the loop thread as soon as possible, after the closures this thread scheduled
    /// before it; dropped if the loop has stopped. Safe from any thread.
    ///
    /// - Parameters:
    ///   - options: none (the loop takes no options).
    ///   - action: what runs.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        enqueue(ScheduledAction(action))
    }

    /// Runs `action` on the loop thread: at once, before returning, when called there; else scheduled as by
    /// ``schedule(options:_:)`` (after the closures this thread scheduled before it; dropped if the loop has
    /// stopped). The layers above use it for work whose order must follow their calls: a loop-thread caller's
    /// requests take effect in the order it makes them, none overtaken by a later one run at once.
    ///
    /// - Parameter action: what runs.
    package func runOnLoopThread(_ action: @escaping () -> Void) {
        if isInLoopThread {
            action()
        } else {
            enqueue(ScheduledAction(action))
        }
    }

    /// Runs `action` once on the loop thread at `date` (at once if `date` has passed); dropped if the
    /// loop stops first. `tolerance` is ignored. Safe from any thread.
    ///
    /// - Parameters:
    ///   - date: when it runs.
    ///   - tolerance: ignored.
    ///   - options: none (the loop takes no options).
    ///   - action: what runs.
    public func schedule(
        after date: SchedulerTimeType,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) {
        insertTimer(deadline: date.nanoseconds, action: ScheduledAction(action), record: nil)
    }

    /// Runs `action` on the loop thread at `date` and every `interval` after (at least a nanosecond)
    /// until the returned cancellable is cancelled or released, or the loop stops.
    ///
    /// Ticks missed while the loop thread was busy are skipped, not run in a burst. A cancel made on the
    /// loop thread (from inside any callback, the action's own included) is exact: the action never runs
    /// again; one made on another thread cannot stop a tick that has already begun. `tolerance` is
    /// ignored.
    ///
    /// - Parameters:
    ///   - date: when it first runs.
    ///   - interval: the time between two runs.
    ///   - tolerance: ignored.
    ///   - options: none (the loop takes no options).
    ///   - action: what runs.
    /// - Returns: what stops it; releasing it stops it too.
    public func schedule(
        after date: SchedulerTimeType,
        interval: SchedulerTimeType.Stride,
        tolerance: SchedulerTimeType.Stride,
        options: SchedulerOptions?,
        _ action: @escaping () -> Void
    ) -> any Cancellable {
        let record = TimerRecord(loop: self, interval: Swift.max(interval.magnitude, 1))
        insertTimer(deadline: date.nanoseconds, action: ScheduledAction(action), record: record)
        return AnyCancellable(record)
    }

    /// *Ripple*: runs `action` once on the loop thread at `date`, unless the returned cancellable is
    /// cancelled or released first (`Scheduler`'s one-shot `schedule(after:)` cannot be cancelled).
    ///
    /// A cancel made on the loop thread is exact; one made on another thread cannot stop an action that
    /// has already begun. A cancelled action is released at its deadline, or earlier when many are
    /// cancelled. Dropped if the loop stops first.
    ///
    /// - Parameters:
    ///   - date: when it runs.
    ///   - action: what runs.
    /// - Returns: what cancels it; releasing it cancels too.
    public func scheduleCancellable(
        after date: SchedulerTimeType,
        _ action: @escaping () -> Void
    ) -> AnyCancellable {
        let record = TimerRecord(loop: self, interval: 0)
        insertTimer(deadline: date.nanoseconds, action: ScheduledAction(action), record: record)
        return AnyCancellable(record)
    }
}
