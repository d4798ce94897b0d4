import Synchronization

/// One value guarded by a mutex, for the layers above Ripple (through `package` access): the
/// `Mutex<State>` of the concurrency rules, in a form ThreadSanitizer can check.
///
/// ThreadSanitizer does not see the ordering that `Mutex` provides on Linux (its futex calls are not
/// instrumented), so two critical sections on different threads look like a race to it. As ``Lock``
/// does, every critical section here also performs an acquiring load and a releasing store on an
/// `Atomic` beside the mutex: plain loads and stores on x86-64, and the happens-before edges
/// ThreadSanitizer needs. The lock is not recursive; no user closure other than `body` runs inside it.
package struct LockedState<State>: ~Copyable, Sendable {
    @usableFromInline
    let mutex: Mutex<State>
    @usableFromInline
    let ordering = Atomic<UInt8>(0)

    /// A lock guarding `initial`.
    ///
    /// - Parameter initial: the state's first value.
    @inlinable
    package init(_ initial: sending State) {
        mutex = Mutex(initial)
    }

    /// Runs `body` with the lock held, on the state, and returns what it returns.
    ///
    /// - Parameter body: reads or changes the state; it must not take this lock again.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws.
    @inlinable
    @inline(__always)
    package func withLock<Result, E: Error>(
        _ body: (inout sending State) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock { (state: inout sending State) throws(E) -> sending Result in
            _ = ordering.load(ordering: .acquiring)
            defer { ordering.store(0, ordering: .releasing) }
            return try body(&state)
        }
    }
}
