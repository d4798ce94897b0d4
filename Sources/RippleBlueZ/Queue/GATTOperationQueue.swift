import Ripple
import RippleLoop

/// One peripheral's GATT operations, run one at a time in the order they were asked for: reads,
/// writes, descriptor operations and notification (un)subscriptions from any number of subscribers.
///
/// bluetoothd refuses a second read or write of a characteristic while one is under way
/// (`org.bluez.Error.InProgress`); with every operation of a peripheral in one line, that never happens.
/// The next operation starts on the loop thread once the one before has ended (answered, failed, timed
/// out or cancelled), never re-entrantly.
final class GATTOperationQueue: Sendable {
    private let loop: EventLoop
    private let lock = Lock()
    nonisolated(unsafe) private var waiting: [(id: Int, urgent: Bool, start: @Sendable () -> Void)] = []
    nonisolated(unsafe) private var running: Int?
    /// While held, only urgent operations (a connection task's) start; the others wait for ``release()``.
    nonisolated(unsafe) private var isHeld = false

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Queues the operation `id`; `start` runs (on the loop thread) when its turn comes. An `urgent`
    /// operation goes before every waiting operation that is not, and runs while the queue is held.
    func enqueue(_ id: Int, urgent: Bool = false, start: @escaping @Sendable () -> Void) {
        let startNow = lock.withLock { () -> Bool in
            guard running == nil, urgent || !isHeld else {
                let position = urgent ? (waiting.firstIndex { !$0.urgent } ?? waiting.count) : waiting.count
                waiting.insert((id, urgent, start), at: position)
                return false
            }
            running = id
            return true
        }
        if startNow { loop.schedule { start() } }
    }

    /// The operation `id` ended, or left before its turn: the next one starts.
    func leave(_ id: Int) {
        let next = lock.withLock { () -> (@Sendable () -> Void)? in
            if let index = waiting.firstIndex(where: { $0.id == id }) {
                waiting.remove(at: index)
                return nil
            }
            guard running == id else { return nil }
            running = nil
            return takeNext()
        }
        if let next { loop.schedule { next() } }
    }

    /// Holds back every operation but the urgent ones, until ``release()``.
    func hold() {
        lock.withLock { isHeld = true }
    }

    /// Lets the operations held back go, in order.
    func release() {
        let next = lock.withLock { () -> (@Sendable () -> Void)? in
            isHeld = false
            guard running == nil else { return nil }
            return takeNext()
        }
        if let next { loop.schedule { next() } }
    }

    /// The next operation allowed to start, marked running (under the lock).
    private func takeNext() -> (@Sendable () -> Void)? {
        guard let index = waiting.firstIndex(where: { $0.urgent || !isHeld }) else { return nil }
        let next = waiting.remove(at: index)
        running = next.id
        return next.start
    }

    /// How many operations wait or run.
    var count: Int { lock.withLock { waiting.count + (running == nil ? 0 : 1) } }
}
