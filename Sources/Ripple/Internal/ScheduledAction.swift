/// A closure handed to a scheduler that runs it on another thread.
///
/// `Scheduler` takes plain `() -> Void` closures, as Combine does, so that existing code compiles; a
/// scheduler's whole purpose is to run them on another thread. The closure crosses threads once, through
/// the queue, timer or lock that holds it, and then runs once per scheduling (or once per tick of a
/// repeating timer), never concurrently with itself.
package struct ScheduledAction: Sendable {
    /// The closure.
    package nonisolated(unsafe) let run: () -> Void

    /// Wraps `action`.
    @inline(__always)
    package init(_ action: @escaping () -> Void) {
        run = action
    }
}
