import Synchronization

/// The lock RippleLoop's types hold while they read or change state shared between threads.
///
/// The same discipline as `Ripple`'s own lock (which is internal to that module): a
/// `Synchronization.Mutex` guarding nothing itself, beside state marked `nonisolated(unsafe)` in the
/// owning class that is read and written only inside ``withLock(_:)``. No user closure, subscriber or
/// subscription is ever called with the lock held, and nothing held by the guarded state is released
/// inside it (a released closure may run arbitrary `deinit` code). The lock is not recursive.
///
/// ThreadSanitizer does not see the ordering `Mutex` provides on Linux (its futex calls are not
/// instrumented), so each critical section also does an acquiring load and a releasing store on an
/// `Atomic` beside the mutex: free on x86-64, and it makes the happens-before edges visible to TSan.
struct Lock: ~Copyable, Sendable {
    private let mutex = Mutex<Void>(())
    private let ordering = Atomic<UInt8>(0)

    init() {}

    /// Runs `body` with the lock held and returns what it returns.
    @inline(__always)
    func withLock<Result, E: Error>(_ body: () throws(E) -> Result) throws(E) -> Result {
        try mutex.withLock { _ throws(E) -> sending Result in
            _ = ordering.load(ordering: .acquiring)
            defer { ordering.store(0, ordering: .releasing) }
            // The result is copied out of the guarded state or freshly built, and used by this thread
            // after the lock is released; the lock itself provides the exclusion.
            nonisolated(unsafe) let result = try body()
            return result
        }
    }
}
