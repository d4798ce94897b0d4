@testable import Ripple

/// A value behind a lock, shared with closures that run on other threads: a counter, a list of what
/// happened, a subscription kept for later.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&stored) } }
}

extension LockedBox {
    /// Appends `element` to the list.
    ///
    /// - Parameter element: What happened.
    func append<Element>(_ element: Element) where Value == [Element] {
        mutate { $0.append(element) }
    }
}
