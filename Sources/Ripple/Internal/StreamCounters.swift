import Synchronization

/// The exact counts of one or more buffered subscriptions, readable from any thread: while a stream is
/// live, `received` = `delivered` + `dropped` + the values waiting in its buffer.
@usableFromInline
package final class StreamCounters: Sendable {
    @usableFromInline let receivedCount = Atomic<Int>(0)
    @usableFromInline let deliveredCount = Atomic<Int>(0)
    @usableFromInline let droppedCount = Atomic<Int>(0)
    private let dropObserver: (@Sendable (Int) -> Void)?

    /// Counters at zero.
    ///
    /// - Parameter dropObserver: told the dropped total after each drop, outside any lock, on the thread
    ///   that dropped.
    package init(dropObserver: (@Sendable (Int) -> Void)? = nil) {
        self.dropObserver = dropObserver
    }

    /// Values offered to a live stream.
    package var received: Int { receivedCount.load(ordering: .relaxed) }
    /// Values handed to the subscriber.
    package var delivered: Int { deliveredCount.load(ordering: .relaxed) }
    /// Values dropped by the overflow rule.
    package var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Counts a value offered to a live stream.
    @inlinable package func countReceived() { receivedCount.add(1, ordering: .relaxed) }
    /// Counts a value handed to the subscriber.
    @inlinable package func countDelivered() { deliveredCount.add(1, ordering: .relaxed) }

    /// Counts `count` dropped values (inside the subscription's lock; report them with ``reportDrops()``).
    ///
    /// - Parameter count: how many were dropped.
    @inlinable package func countDropped(_ count: Int) { droppedCount.add(count, ordering: .relaxed) }

    /// Tells the drop observer the dropped total (outside every lock).
    @usableFromInline package func reportDrops() { dropObserver?(dropped) }
}
