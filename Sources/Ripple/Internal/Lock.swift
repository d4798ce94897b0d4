import Synchronization

/// The lock every Ripple type holds while it reads or changes its state.
///
/// A `Synchronization.Mutex` guarding nothing itself: the state it protects lives beside it in the owning
/// class, so that state may hold values that are not `Sendable` (subscribers, subscriptions, outputs —
/// as in Combine, those protocols do not require `Sendable`). The rule every user of this lock follows:
/// state marked `nonisolated(unsafe)` is read and written only inside ``withLock(_:)``, and no
/// subscriber, subscription or user closure is ever called while the lock is held (so re-entrant calls
/// from downstream cannot deadlock). The lock is not recursive.
@usableFromInline
struct Lock: ~Copyable, Sendable {
    @usableFromInline
    let mutex = Mutex<Void>(())

    @inlinable
    init() {}

    /// Runs `body` with the lock held and returns what it returns.
    @inlinable
    @inline(__always)
    func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        try mutex.withLock { _ throws(E) -> sending Result in
            // The result is either a value copied out of the guarded state (used after the lock is
            // released by the same thread) or freshly built; the lock itself provides the exclusion.
            nonisolated(unsafe) let result = try body()
            return result
        }
    }
}
