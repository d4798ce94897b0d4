/// What an event stream does with a value that arrives while its subscriber's buffer is full.
///
/// Every drop is counted exactly in the stream's ``EventStatistics``; nothing is ever lost silently.
public enum EventBufferPolicy: Sendable, Hashable {
    /// Drops the oldest waiting value to make room: the subscriber sees the latest values.
    case dropOldest
    /// Drops the arriving value: the subscriber sees the first values.
    case dropNewest
    /// Ends the stream at once with ``BluetoothError/Kind/bufferOverflow``, even when the subscriber
    /// demands nothing: the values that were waiting are dropped (and counted) with the one that
    /// overflowed. A stream that cannot fail (its failure type is `Never`) finishes instead; its
    /// statistics show the drops.
    case failStream
}

/// The bounded buffer an event stream keeps for each subscriber, between what happens and what the
/// subscriber has demanded, and its policy when full.
///
/// A subscriber with unlimited demand (`sink`) never buffers. A subscriber that asks for one value at a
/// time (every `for await` loop over `values`) finds what arrived meanwhile in its buffer: nothing is lost
/// within the capacity, even while the loop's body awaits.
public struct EventBuffering: Sendable, Hashable {
    /// The most values kept waiting for demand (at least 1).
    public var capacity: Int
    /// What happens when one more arrives.
    public var policy: EventBufferPolicy

    /// A buffer of `capacity` values (at least 1) with `policy`.
    ///
    /// - Parameters:
    ///   - capacity: the most values kept waiting for demand; values below 1 count as 1.
    ///   - policy: what happens when one more arrives.
    public init(capacity: Int, policy: EventBufferPolicy) {
        self.capacity = Swift.max(capacity, 1)
        self.policy = policy
    }

    /// 4,096 values, then the stream fails: memory stays bounded and nothing is dropped silently.
    public static let `default` = EventBuffering(capacity: 4_096, policy: .failStream)
}
