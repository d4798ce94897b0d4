import RippleLoop

/// A value only the loop thread may touch: every access checks that it runs there.
///
/// The central keeps its state machines in one of these: bluetoothd's signals, answers and the timers
/// all arrive on the loop thread, and requests from other threads go there first
/// (``CentralCore/perform(_:)``), so the machines need no lock and see every event in one order.
final class LoopConfined<Value>: Sendable {
    private let loop: EventLoop
    /// Read and changed only on the loop thread, as the precondition of ``value`` checks; the dynamic
    /// exclusivity check (a thread-local look-up per access, several per notification) is skipped.
    @exclusivity(unchecked) nonisolated(unsafe) private var storage: Value

    /// Confines `value` to `loop`'s thread.
    ///
    /// - Parameters:
    ///   - value: the initial value.
    ///   - loop: the loop whose thread alone may read and change it.
    init(_ value: Value, to loop: EventLoop) {
        storage = value
        self.loop = loop
    }

    /// The value; reading or changing it off the loop thread is a programming error and stops the process.
    var value: Value {
        _read {
            precondition(loop.isInLoopThread, "the central's state is confined to its loop thread")
            yield storage
        }
        _modify {
            precondition(loop.isInLoopThread, "the central's state is confined to its loop thread")
            yield &storage
        }
    }
}
