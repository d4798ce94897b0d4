import Ripple
import Synchronization

/// The timers of one ``EventLoop``: a min-heap of deadlines behind a lock, driven by a single `uv_timer`.
///
/// Why one `uv_timer` and a heap rather than one `uv_timer` per scheduled action: a `uv_timer` may only
/// be touched on the loop thread, so a timer scheduled from another thread would cost a closure
/// allocation and a hop through the loop's queue before it could even be started, plus a handle
/// allocation and a `uv_close` round trip to free it. With the heap, scheduling from any thread is one
/// lock acquisition and an O(log n) insertion with no allocation beyond the caller's closure; the loop
/// thread is woken only when the new deadline is earlier than the one the `uv_timer` is armed for (so
/// 10,000 timers scheduled at once wake it a handful of times, not 10,000). When the `uv_timer` fires,
/// every due entry is taken out in one lock acquisition and run in deadline order (equal deadlines in
/// scheduling order), and the `uv_timer` is re-armed for the new earliest deadline.
///
/// Cancellation is lazy: a cancelled entry stays in the heap, marked, until its deadline comes (then it
/// is skipped) or until cancelled entries make up half the heap (then they are all removed at once, so a
/// pattern of schedule-and-cancel cannot grow the heap without bound). One exception: a cancellation on
/// the loop thread takes cancelled entries off the front of the heap at once and re-arms the `uv_timer`
/// for the earliest timer left, or stops it — a call's timeout cancelled by its reply (the common case)
/// would otherwise keep the timer armed, and every wait of the loop timed, until the timeout's deadline.
final class TimerQueue: Sendable {
    /// What the loop must do after an insertion.
    enum InsertOutcome: Equatable {
        /// The loop has stopped: the entry was not kept.
        case rejected
        /// The entry is queued and the `uv_timer` is (or is about to be) armed early enough.
        case queued
        /// The entry is queued and is now the earliest: the loop thread must be woken to re-arm.
        case needsWake
    }

    private let lock = Lock()
    private nonisolated(unsafe) var heap = TimerHeap()
    private nonisolated(unsafe) var nextSequence: UInt64 = 0
    /// The deadline the loop thread will have armed the `uv_timer` for once it has seen every insertion
    /// so far: `Int.max` when nothing is armed, `Int.min` while the loop thread is firing timers (it
    /// re-arms from the heap afterwards, so no insertion needs to wake it).
    private nonisolated(unsafe) var armedDeadline = Int.max
    private nonisolated(unsafe) var cancelledInHeap = 0
    private nonisolated(unsafe) var isClosed = false

    /// The number of entries in the heap, cancelled ones included.
    var count: Int {
        lock.withLock { heap.count }
    }

    /// Adds an action due at `deadline`; any thread.
    func insert(deadline: Int, action: ScheduledAction, record: TimerRecord?) -> InsertOutcome {
        lock.withLock {
            guard !isClosed else { return .rejected }
            heap.push(TimerEntry(deadline: deadline, sequence: nextSequence, action: action, record: record))
            nextSequence &+= 1
            guard deadline < armedDeadline else { return .queued }
            armedDeadline = deadline
            return .needsWake
        }
    }

    /// Marks `record`'s timer cancelled so it never fires again; any thread.
    ///
    /// With `trimming` (the loop thread cancels), cancelled entries at the front of the heap leave it at
    /// once, and the result says whether the `uv_timer` is now armed earlier than any timer left: the loop
    /// thread then re-arms it (``deadlineToArm()``) rather than keep every wait of the loop timed, and wake
    /// for nothing. Otherwise returns false.
    func cancel(_ record: TimerRecord, trimming: Bool) -> Bool {
        var armedTooEarly = false
        let removed = lock.withLock { () -> [TimerEntry] in
            let previous = record.state.exchange(TimerRecord.cancelled, ordering: .acquiringAndReleasing)
            guard previous == TimerRecord.scheduled, !isClosed else { return [] }
            cancelledInHeap += 1
            var removed: [TimerEntry] = []
            while trimming, let first = heap.entries.first, first.record?.isCancelled ?? false,
                let taken = heap.popIfDue(at: .max)
            {
                removed.append(taken)
                cancelledInHeap -= 1
            }
            if cancelledInHeap >= 64, cancelledInHeap * 2 >= heap.count {
                cancelledInHeap = 0
                removed += heap.removeAll { $0.record?.isCancelled ?? false }
            }
            // `.min`: the loop thread is firing timers and re-arms from the heap afterwards.
            armedTooEarly = trimming && armedDeadline != .min && (heap.earliestDeadline ?? .max) > armedDeadline
            return removed
        }
        // The cancelled closures are released here, outside the lock.
        _ = removed
        return armedTooEarly
    }

    /// Moves every entry due at `now` into `due`, earliest first; loop thread only.
    ///
    /// Cancelled entries are moved too (the caller skips them), so that their closures are released
    /// outside the lock.
    func takeDue(at now: Int, into due: inout [TimerEntry]) {
        lock.withLock {
            armedDeadline = .min
            while let entry = heap.popIfDue(at: now) {
                if let record = entry.record {
                    if record.isCancelled {
                        cancelledInHeap -= 1
                    } else {
                        record.state.store(TimerRecord.firing, ordering: .releasing)
                    }
                }
                due.append(entry)
            }
        }
    }

    /// Puts the repeating timers among `fired` back for their next tick (unless cancelled meanwhile)
    /// and returns the deadline to arm the `uv_timer` for (`Int.max`: none); loop thread only.
    func finishFiring(_ fired: [TimerEntry], at now: Int) -> Int {
        lock.withLock {
            if !isClosed {
                for entry in fired {
                    guard let record = entry.record, record.interval > 0,
                        record.state.compareExchange(
                            expected: TimerRecord.firing, desired: TimerRecord.scheduled,
                            ordering: .acquiringAndReleasing
                        ).exchanged
                    else { continue }
                    let deadline = Self.nextTick(after: entry.deadline, every: record.interval, now: now)
                    heap.push(
                        TimerEntry(deadline: deadline, sequence: nextSequence, action: entry.action, record: record))
                    nextSequence &+= 1
                }
            }
            armedDeadline = heap.earliestDeadline ?? .max
            return armedDeadline
        }
    }

    /// The deadline to arm the `uv_timer` for now (`Int.max`: none); loop thread only.
    func deadlineToArm() -> Int {
        lock.withLock {
            armedDeadline = heap.earliestDeadline ?? .max
            return armedDeadline
        }
    }

    /// Refuses every later insertion and returns every entry, to be released by the caller outside
    /// the lock.
    func close() -> [TimerEntry] {
        lock.withLock {
            isClosed = true
            cancelledInHeap = 0
            armedDeadline = .max
            return heap.removeAll()
        }
    }

    /// The first tick of a timer repeating every `interval` after `previous` that is later than `now`:
    /// ticks missed while the loop was busy are skipped, not run in a burst, and the phase is kept.
    private static func nextTick(after previous: Int, every interval: Int, now: Int) -> Int {
        let (next, overflow) = previous.addingReportingOverflow(interval)
        if overflow { return .max }
        guard next <= now else { return next }
        let missed = (now - previous) / interval
        let (skip, skipOverflow) = (missed + 1).multipliedReportingOverflow(by: interval)
        guard !skipOverflow else { return .max }
        let (late, lateOverflow) = previous.addingReportingOverflow(skip)
        return lateOverflow ? .max : late
    }
}

/// The cancellation state of one repeating or cancellable timer, shared by its heap entry and the
/// cancellable handed to the caller.
///
/// State changes happen under the ``TimerQueue``'s lock; the loop thread also reads the state just
/// before running the action, so a cancel from the loop thread (from inside any callback) is exact: the
/// action never runs afterwards. A cancel from another thread cannot stop a tick that has already begun.
final class TimerRecord: Cancellable, Sendable {
    /// In the heap, waiting for its deadline.
    static let scheduled: UInt8 = 0
    /// Taken out of the heap by the loop thread, about to run (a repeating timer goes back afterwards).
    static let firing: UInt8 = 1
    /// Cancelled: never runs again.
    static let cancelled: UInt8 = 2

    /// The queue holding the timer's entry.
    let queue: TimerQueue
    /// The loop whose `uv_timer` serves the queue: re-armed when a cancellation on its thread leaves it
    /// armed for nothing. Weak: a cancellable may outlive its loop.
    weak let loop: EventLoop?
    /// Nanoseconds between ticks for a repeating timer (at least 1); 0 for a one-shot.
    let interval: Int
    /// One of ``scheduled``, ``firing`` or ``cancelled``.
    let state = Atomic<UInt8>(TimerRecord.scheduled)

    init(loop: EventLoop, interval: Int) {
        self.queue = loop.timers
        self.loop = loop
        self.interval = interval
    }

    /// Whether the timer has been cancelled.
    var isCancelled: Bool {
        state.load(ordering: .acquiring) == TimerRecord.cancelled
    }

    /// Cancels the timer: it never fires again (see the type's note on other threads). Idempotent.
    func cancel() {
        let loop = self.loop
        let onLoopThread = loop?.isInLoopThread ?? false
        guard queue.cancel(self, trimming: onLoopThread), let loop else { return }
        loop.rearmTimer()
    }
}
