/// A closure handed to the event loop's thread.
///
/// `Scheduler` takes plain `() -> Void` closures, as Combine does, so that existing code compiles; the
/// loop's whole purpose is to run them on its own thread. The closure crosses threads exactly once,
/// under the lock of the queue or timer heap that holds it, and then runs on the loop thread, once per
/// scheduling (or once per tick of a repeating timer), never concurrently with itself.
struct ScheduledAction: Sendable {
    nonisolated(unsafe) let run: () -> Void

    @inline(__always)
    init(_ action: @escaping () -> Void) {
        run = action
    }
}
