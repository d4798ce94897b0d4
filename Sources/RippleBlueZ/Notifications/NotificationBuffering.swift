import Ripple
import Synchronization

/// What a listener does with notifications that arrive faster than its subscriber demands them.
public enum NotificationBufferPolicy: Sendable, Hashable {
    /// Drops the oldest waiting notification to make room (the subscriber sees the latest values).
    case dropOldest
    /// Drops the arriving notification (the subscriber sees the first values).
    case dropNewest
    /// Ends the stream at once with ``BluetoothError/Kind/bufferOverflow``; the notifications that were
    /// waiting are dropped (and counted) with the one that overflowed.
    case failStream
}

/// The bounded buffer between a characteristic's notifications and one listener's subscriber.
public struct NotificationBuffering: Sendable, Hashable {
    /// The most notifications kept waiting for demand (at least 1).
    public var capacity: Int
    /// What happens when one more arrives.
    public var policy: NotificationBufferPolicy

    /// A buffer of `capacity` notifications with `policy`.
    public init(capacity: Int, policy: NotificationBufferPolicy) {
        self.capacity = Swift.max(capacity, 1)
        self.policy = policy
    }

    /// 4,096 notifications, then the stream fails: memory stays bounded and nothing is dropped silently.
    public static let `default` = NotificationBuffering(capacity: 4_096, policy: .failStream)
}

/// A listener's counters, updated as notifications arrive (read them from any thread). While the
/// stream is live, `received` = `delivered` + `dropped` + the notifications waiting in its buffer.
public final class NotificationStatistics: Sendable {
    private let receivedCount = Atomic<Int>(0)
    private let deliveredCount = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)

    /// Counters at zero.
    public init() {}

    /// Notifications that arrived for the listener.
    public var received: Int { receivedCount.load(ordering: .relaxed) }
    /// Notifications passed to the subscriber.
    public var delivered: Int { deliveredCount.load(ordering: .relaxed) }
    /// Notifications dropped by the policy.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// The dropped total now, then after each drop (on the thread that dropped: the loop's).
    public var drops: AnyPublisher<Int, Never> {
        dropSubject.prepend(dropped).removeDuplicates().eraseToAnyPublisher()
    }

    private let dropSubject = PassthroughSubject<Int, Never>()

    func countReceived() { receivedCount.add(1, ordering: .relaxed) }
    func countDelivered() { deliveredCount.add(1, ordering: .relaxed) }
    func countDropped(_ count: Int = 1) { droppedCount.add(count, ordering: .relaxed) }

    /// Tells ``drops`` subscribers the new total (called outside any listener's lock).
    func reportDrops() { dropSubject.send(dropped) }
}
