import Synchronization

/// The lock every Ripple type (and the layers above, through `package` access) holds while it reads or changes its state.
///
/// A `Synchronization.Mutex` guarding nothing itself: the state it protects lives beside it in the owning
/// class, so that state may hold values that are not `Sendable` (subscribers, subscriptions, outputs —
/// as in Combine, those protocols do not require `Sendable`). The rule every user of this lock follows:
/// state marked `nonisolated(unsafe)` is read and written only inside ``withLock(_:)``, and no
/// subscriber, subscription or user closure is ever called while the lock is held (so re-entrant calls
/// from downstream cannot deadlock). The lock is not recursive.
///
/// ThreadSanitizer does not see the ordering that `Mutex` provides on Linux (its futex calls are not
/// instrumented), so every critical section also performs an acquiring load and a releasing store on
/// an `Atomic` beside the mutex. These are plain loads and stores on x86-64 and cost nothing measurable;
/// under `--sanitize=thread` they make the mutex's happens-before edges visible.
@usableFromInline
package struct Lock: ~Copyable, Sendable {
    @usableFromInline
    let mutex = Mutex<Void>(())
    @usableFromInline
    let ordering = Atomic<UInt8>(0)

    @inlinable
    package init() {}

    /// Runs `body` with the lock held and returns what it returns.
    ///
    /// The mutex is taken and given back around a direct call of `body`, rather than through
    /// `Mutex.withLock`, whose closure takes and returns `sending` values: the conversion to that closure
    /// type kept the optimiser from inlining `body`, so every critical section cost two indirect calls,
    /// and a value `body` captured (a subscription handed to `receive(subscription:)`) could no longer be
    /// followed to its concrete type, which left the calls made on it unspecialised.
    @inlinable
    @inline(__always)
    package func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        mutex._unsafeLock()
        _ = ordering.load(ordering: .acquiring)
        defer {
            ordering.store(0, ordering: .releasing)
            mutex._unsafeUnlock()
        }
        return try body()
    }
}
