@testable import Ripple

/// Holds a future's promise so that a test (or another thread) fulfils it later, or drops it.
final class PromiseBox<Output, Failure: Error>: @unchecked Sendable {
    private let lock = Lock()
    private var stored: Future<Output, Failure>.Promise?

    /// The promise kept, if any: set it from the future's closure, or to nil to drop it.
    var promise: Future<Output, Failure>.Promise? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Calls the kept promise with `result` (nothing happens when none is kept).
    func fulfil(_ result: Result<Output, Failure>) {
        promise?(result)
    }
}
