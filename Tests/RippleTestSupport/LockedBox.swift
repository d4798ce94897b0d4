import Ripple

/// A value behind a lock, shared between a test and the closures it hands to other threads: a counter, a
/// list of what happened in order, a subscription or continuation kept for later.
///
/// The tests' one form of the concurrency rules' `Mutex<State>`: the value beside Ripple's `Lock`, whose
/// ordering ThreadSanitizer sees on Linux (it does not see a bare `Synchronization.Mutex`'s), read and
/// written only with the lock held. The value need not be `Sendable` (a Combine subscription is not); a
/// test hands it between threads only as Combine code would. Nothing but the body given to
/// ``withLock(_:)`` runs with the lock held.
///
/// ```swift
/// let seen = LockedBox<[Int]>()
/// queue.async { seen.append(1) }
/// …
/// #expect(seen.value == [1])
/// ```
public final class LockedBox<Value>: Sendable {
    private let lock = Lock()
    private nonisolated(unsafe) var stored: Value

    /// A box holding `value`.
    ///
    /// - Parameter value: The first value.
    public init(_ value: Value) {
        stored = value
    }

    /// The value now; setting it replaces the value as one step.
    public var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Runs `body` on the value with the lock held (a read-modify-write as one step), and returns what it
    /// returns.
    ///
    /// - Parameter body: Reads or changes the value; it must not use this box again.
    /// - Returns: What `body` returns.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}

extension LockedBox {
    /// An empty list, to which things that happen are appended in order.
    public convenience init<Element>() where Value == [Element] {
        self.init([])
    }

    /// Appends `element` to the list.
    ///
    /// - Parameter element: What happened.
    public func append<Element>(_ element: Element) where Value == [Element] {
        withLock { $0.append(element) }
    }
}
