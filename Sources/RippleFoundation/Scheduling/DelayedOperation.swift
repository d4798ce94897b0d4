import Dispatch
import Foundation
import Ripple

/// An operation that is not ready until its time: what `OperationQueue`'s scheduler adds for work at a
/// later date. A dispatch timer makes it ready at that time; until then the queue holds it without running
/// it. When it belongs to a ``Repetition``, running it adds the next one, and cancelling it ends the
/// repetition. It is `Cancellable` (through `Operation.cancel()`), as Combine's is.
final class DelayedOperation: Operation, Cancellable, @unchecked Sendable {
    private let lock = Lock()
    private let time: Date
    private let repetition: Repetition?
    /// The work, until it runs or the operation is cancelled.
    private nonisolated(unsafe) var action: ScheduledAction?
    private nonisolated(unsafe) var isDue = false

    init(at time: Date, repeating repetition: Repetition?, action: ScheduledAction) {
        self.time = time
        self.repetition = repetition
        self.action = action
        super.init()
    }

    /// Adds the operation to `queue`, then starts the timer that makes it ready at its time.
    ///
    /// In that order: Foundation's queue caches an operation's readiness, and a read of `isReady` made before
    /// the operation was due but stored after the due notification's would leave it waiting for ever. Adding
    /// the operation reads its readiness; the timer, started afterwards, can no longer race with that read.
    func add(to queue: OperationQueue) {
        queue.addOperation(self)
        let delay = Swift.max(0, time.timeIntervalSinceNow)
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in
            self?.becomeDue()
        }
    }

    /// Ready once its time has come (and its dependencies, if any, are done).
    override var isReady: Bool {
        lock.withLock { isDue } && super.isReady
    }

    override func main() {
        let action = lock.withLock { () -> ScheduledAction? in
            let action = self.action
            self.action = nil
            return action
        }
        guard let action, !isCancelled else { return }
        action.run()
        repetition?.ran(self, at: time, action: action)
    }

    override func cancel() {
        // A cancelled operation must become ready for the queue to remove it; due first, so that every read
        // of `isReady` from here on — Foundation's cancel makes one and caches the answer — says ready.
        lock.withLock {
            action = nil
            isDue = true
        }
        super.cancel()
        // Cancelling any operation of a repetition ends it: `cancelAllOperations` may cancel this one while it
        // runs, before it has added the next one, which the queue's cancel then misses.
        repetition?.cancel()
        // Announced whether or not the timer did: a readiness the timer's announcement cached may since have
        // been overwritten by the answer of a read made before the operation was due.
        announceReadiness()
    }

    private func becomeDue() {
        let changes = lock.withLock { () -> Bool in
            guard !isDue else { return false }
            isDue = true
            return true
        }
        if changes { announceReadiness() }
    }

    /// Tells the queue that `isReady` may have changed: it reads it again and runs the operation if ready.
    private func announceReadiness() {
        willChangeValue(for: \.isReady)
        didChangeValue(for: \.isReady)
    }

    /// The chain of operations of one repeating schedule: it adds the next operation when one runs, until
    /// it is cancelled.
    final class Repetition: Cancellable, @unchecked Sendable {
        private let lock = Lock()
        private let interval: TimeInterval
        private nonisolated(unsafe) weak var queue: OperationQueue?
        /// The operation waiting to run; `nil` once cancelled.
        private nonisolated(unsafe) var pendingOperation: DelayedOperation?
        private nonisolated(unsafe) var isCancelled = false

        init(queue: OperationQueue, interval: TimeInterval) {
            self.queue = queue
            self.interval = interval
        }

        /// Records `operation` as the one waiting to run.
        func pending(_ operation: DelayedOperation) {
            lock.withLock { pendingOperation = operation }
        }

        /// `operation`, due at `time`, has run: adds the next one, due `interval` later.
        func ran(_ operation: DelayedOperation, at time: Date, action: ScheduledAction) {
            // The next one is added under the lock: a cancel from another thread then finds it in its queue
            // (its readiness read and cached), never between the two.
            lock.withLock {
                guard !isCancelled, pendingOperation === operation, let queue else { return }
                let next = DelayedOperation(at: time + interval, repeating: self, action: action)
                pendingOperation = next
                next.add(to: queue)
            }
        }

        /// Ends the repetition and cancels the operation waiting to run.
        func cancel() {
            let pending = lock.withLock { () -> DelayedOperation? in
                isCancelled = true
                let pending = pendingOperation
                pendingOperation = nil
                return pending
            }
            pending?.cancel()
        }
    }
}
