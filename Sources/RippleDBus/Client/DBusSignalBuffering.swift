/// How many values a stream of a ``DBusConnection`` keeps for a subscriber that has not demanded them
/// (signals, owner changes, object-manager changes), and so how much memory a flood can take.
///
/// When a subscriber without demand has `limit` values waiting and another arrives, the stream ends with
/// ``DBusError/bufferOverflow(limit:)``: the waiting values are dropped with it and no later value is
/// taken. A subscriber with unlimited demand (`sink`) never buffers.
public struct DBusSignalBuffering: Sendable, Hashable {
    /// The most values kept waiting for demand (at least 1).
    public var limit: Int

    /// A buffer of `limit` values (at least 1).
    ///
    /// - Parameter limit: how many values are kept.
    public init(limit: Int) {
        self.limit = Swift.max(limit, 1)
    }

    /// 65,536 values: about one second of a very busy bus.
    public static let `default` = DBusSignalBuffering(limit: 65_536)

    /// A buffer of `limit` values (at least 1).
    ///
    /// - Parameter limit: how many values are kept.
    /// - Returns: the buffering.
    public static func bounded(_ limit: Int) -> DBusSignalBuffering {
        DBusSignalBuffering(limit: limit)
    }
}
