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
        lock.withLock { action = nil }
        super.cancel()
        // Cancelling any operation of a repetition ends it: `cancelAllOperations` may cancel this one while it
        // runs, before it has added the next one, which the queue's cancel then misses.
        repetition?.cancel()
        // A cancelled operation must become ready for the queue to remove it.
        becomeDue()
    }

    private func becomeDue() {
        let changes = lock.withLock { () -> Bool in
            guard !isDue else { return false }
            return true
        }
        guard changes else { return }
        willChangeValue(for: \.isReady)
        lock.withLock { isDue = true }
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
            let next = lock.withLock { () -> (DelayedOperation, OperationQueue)? in
                guard !isCancelled, pendingOperation === operation, let queue else { return nil }
                let next = DelayedOperation(at: time + interval, repeating: self, action: action)
                pendingOperation = next
                return (next, queue)
            }
            guard let (operation, queue) = next else { return }
            queue.addOperation(operation)
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
