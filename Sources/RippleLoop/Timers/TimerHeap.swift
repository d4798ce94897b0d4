import Ripple

/// One scheduled timer action waiting in a ``TimerHeap``.
struct TimerEntry {
    /// When the action is due, in nanoseconds on the loop's monotonic clock.
    var deadline: Int
    /// The order of scheduling: it breaks ties between equal deadlines, so they fire first-in first-out.
    var sequence: UInt64
    /// What runs when the timer fires.
    let action: ScheduledAction
    /// The cancellation state of a repeating or cancellable timer; `nil` for a plain one-shot
    /// `schedule(after:)`, which Combine's `Scheduler` gives no way to cancel.
    let record: TimerRecord?

    /// Whether this entry fires before `other`: earlier deadline, then earlier scheduling.
    @inline(__always)
    func precedes(_ other: TimerEntry) -> Bool {
        deadline < other.deadline || (deadline == other.deadline && sequence < other.sequence)
    }
}

/// A binary min-heap of timer entries ordered by deadline, then by scheduling order.
///
/// Adding or removing the earliest entry costs O(log n) element moves and no allocation once the
/// backing array has grown; the earliest entry is read in O(1). Not thread-safe: ``TimerQueue`` owns it
/// under its lock.
struct TimerHeap {
    private(set) var entries: [TimerEntry] = []

    /// The number of entries.
    var count: Int { entries.count }

    /// The earliest entry's deadline, or `nil` when the heap is empty.
    var earliestDeadline: Int? { entries.first?.deadline }

    /// Adds `entry`.
    mutating func push(_ entry: TimerEntry) {
        entries.append(entry)
        siftUp(from: entries.count - 1)
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    mutating func popIfDue(at now: Int) -> TimerEntry? {
        guard let first = entries.first, first.deadline <= now else { return nil }
        let last = entries.removeLast()
        guard !entries.isEmpty else { return last }
        entries[0] = last
        siftDown(from: 0)
        return first
    }

    /// Removes and returns every entry for which `shouldRemove` is true, and restores heap order (O(n)).
    mutating func removeAll(where shouldRemove: (TimerEntry) -> Bool) -> [TimerEntry] {
        var removed: [TimerEntry] = []
        var kept: [TimerEntry] = []
        kept.reserveCapacity(entries.count)
        for entry in entries {
            if shouldRemove(entry) {
                removed.append(entry)
            } else {
                kept.append(entry)
            }
        }
        entries = kept
        var index = entries.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
        return removed
    }

    /// Removes and returns every entry.
    mutating func removeAll() -> [TimerEntry] {
        let all = entries
        entries = []
        return all
    }

    private mutating func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        let count = entries.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            let right = left + 1
            var earliest = left
            if right < count, entries[right].precedes(entries[left]) {
                earliest = right
            }
            guard entries[earliest].precedes(entries[parent]) else { return }
            entries.swapAt(parent, earliest)
            parent = earliest
        }
    }
}
