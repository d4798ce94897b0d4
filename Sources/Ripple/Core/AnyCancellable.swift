import Synchronization

/// A type-erased cancellable that cancels when it is deinitialised.
///
/// Keep the `AnyCancellable` returned by `sink` or `assign` for as long as you want the subscription to
/// live; dropping it cancels. Equality and hashing are by identity. `cancel()` is safe from any thread
/// and runs the cancellation at most once.
public final class AnyCancellable: Cancellable, Hashable, Sendable {
    @usableFromInline let lock = Lock()
    /// Guarded by `lock`, so its accesses skip the dynamic exclusivity check.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var cancellation: (() -> Void)?

    /// Creates a cancellable that runs `cancel` once, on the first ``cancel()`` or on deinit.
    ///
    /// - Parameter cancel: The closure to run on cancellation.
    @inlinable
    public init(_ cancel: @escaping () -> Void) {
        cancellation = cancel
    }

    /// Creates a cancellable that cancels `canceller` once, on the first ``cancel()`` or on deinit.
    /// Inlinable, so that the cancellation calls `canceller`'s own `cancel()` specialised in the client.
    ///
    /// - Parameter canceller: The cancellable to cancel.
    @inlinable
    public init<C: Cancellable>(_ canceller: C) {
        cancellation = canceller.cancel
    }

    deinit {
        cancellation?()
    }

    /// Runs the cancellation if it has not run yet; later calls do nothing.
    public func cancel() {
        // Moved out by plain assignments rather than returned from the critical section or swapped: a
        // closure passed through a generic (the lock's result, `swap`) is wrapped in a reabstraction thunk,
        // an allocation per cancellation.
        var action: (() -> Void)?
        lock.withLock {
            action = cancellation
            cancellation = nil
        }
        action?()
    }

    /// Appends this cancellable to `collection`.
    ///
    /// - Parameter collection: The collection to append to.
    public func store<C: RangeReplaceableCollection>(in collection: inout C) where C.Element == AnyCancellable {
        collection.append(self)
    }

    /// Inserts this cancellable into `set`.
    ///
    /// - Parameter set: The set to insert into.
    public func store(in set: inout Set<AnyCancellable>) {
        set.insert(self)
    }

    /// Whether two values are the same instance.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: AnyCancellable, rhs: AnyCancellable) -> Bool {
        lhs === rhs
    }

    /// Hashes the instance's identity.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}
