import Ripple

/// Holds a subscription until it completes.
final class CancellableBox: Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var stored: AnyCancellable?

    var cancellable: AnyCancellable? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
