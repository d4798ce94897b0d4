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
    nonisolated(unsafe) private var waiting: [(id: Int, start: @Sendable () -> Void)] = []
    nonisolated(unsafe) private var running: Int?

    init(loop: EventLoop) {
        self.loop = loop
    }

    /// Queues the operation `id`; `start` runs (on the loop thread) when its turn comes.
    func enqueue(_ id: Int, start: @escaping @Sendable () -> Void) {
        let startNow = lock.withLock { () -> Bool in
            guard running == nil else {
                waiting.append((id, start))
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
            guard !waiting.isEmpty else {
                running = nil
                return nil
            }
            let next = waiting.removeFirst()
            running = next.id
            return next.start
        }
        if let next { loop.schedule { next() } }
    }

    /// How many operations wait or run.
    var count: Int { lock.withLock { waiting.count + (running == nil ? 0 : 1) } }
}
