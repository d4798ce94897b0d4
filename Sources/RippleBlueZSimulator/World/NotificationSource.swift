#if canImport(Glibc)
import Glibc
#endif

/// A stream of notifications a characteristic sends by itself while a client listens: a number of
/// them, or an endless stream, as fast as possible or at a rate, with numbered or given payloads.
///
/// The source starts when notifications are enabled on the characteristic (the first `StartNotify`
/// session or an `AcquireNotify`) and stops when they are disabled or the peripheral disconnects; it
/// starts from the beginning (sequence number 0) each time. Over `AcquireNotify` the simulator writes
/// the notifications to the socket from a thread of their own, at up to hundreds of thousands per second;
/// over `StartNotify` each is a `PropertiesChanged` signal of `Value`.
public struct NotificationSource: Sendable, Hashable {
    /// What each notification carries.
    public enum Payload: Sendable, Hashable {
        /// `size` bytes: the sequence number (0, 1, 2, …) as a little-endian `UInt32` in the first 4, then
        /// `0xA5`. `size` must be at least 4.
        case numbered(size: Int)
        /// `size` bytes, each the low byte of the sequence number.
        case sequenceByte(size: Int)
        /// `size` bytes for latency measurements: the sequence number as a little-endian `UInt32` in the
        /// first 4, the send time (`CLOCK_MONOTONIC`, nanoseconds) as a little-endian `UInt64` in the next 8,
        /// taken just before the notification is sent, then `0xA5`. `size` must be at least 12.
        case timestamped(size: Int)
        /// The given payloads in turn, starting again after the last (a heart-rate monitor's readings).
        case cycle([[UInt8]])
    }

    /// How many notifications to send; nil for no end.
    public var count: Int?
    /// Notifications per second; nil for as fast as the client takes them.
    public var rate: Double?
    /// What each notification carries.
    public var payload: Payload

    /// A source of `count` notifications (nil: no end) at `rate` per second (nil: as fast as possible),
    /// each carrying `payload` (20 numbered bytes by default).
    ///
    /// - Parameters:
    ///   - count: how many notifications to send; nil for no end.
    ///   - rate: notifications per second; nil for as fast as the client takes them.
    ///   - payload: what each notification carries.
    public init(count: Int? = nil, rate: Double? = nil, payload: Payload = .numbered(size: 20)) {
        self.count = count
        self.rate = rate
        self.payload = payload
    }

    /// The payload of notification number `sequence`.
    ///
    /// - Parameter sequence: the notification's number, from 0.
    /// - Returns: its bytes.
    public func payload(sequence: UInt32) -> [UInt8] {
        switch payload {
        case .numbered(let size):
            var bytes = [UInt8](repeating: 0xA5, count: Swift.max(size, 0))
            for index in 0..<Swift.min(4, bytes.count) {
                bytes[index] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(index)))
            }
            return bytes
        case .sequenceByte(let size):
            return [UInt8](repeating: UInt8(truncatingIfNeeded: sequence), count: Swift.max(size, 0))
        case .timestamped(let size):
            var bytes = [UInt8](repeating: 0xA5, count: Swift.max(size, 0))
            Self.stamp(&bytes, sequence: sequence)
            return bytes
        case .cycle(let payloads):
            guard !payloads.isEmpty else { return [] }
            return payloads[Int(sequence % UInt32(truncatingIfNeeded: payloads.count))]
        }
    }

    /// Writes `sequence` and the current monotonic time into the first 12 bytes of `bytes` (as
    /// ``Payload/timestamped(size:)`` lays them out); shorter buffers get what fits.
    static func stamp(_ bytes: inout [UInt8], sequence: UInt32) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanoseconds = UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
        for index in 0..<Swift.min(4, bytes.count) {
            bytes[index] = UInt8(truncatingIfNeeded: sequence >> (8 * UInt32(index)))
        }
        for index in 0..<Swift.max(0, Swift.min(8, bytes.count - 4)) {
            bytes[4 + index] = UInt8(truncatingIfNeeded: nanoseconds >> (8 * UInt64(index)))
        }
    }

    /// Why the source cannot run, or nil when it can.
    var problem: String? {
        if let count, count < 0 { return "a notification source's count is negative" }
        if let rate, !(rate > 0) || !rate.isFinite { return "a notification source's rate is not a positive number" }
        switch payload {
        case .numbered(let size):
            if size < 4 || size > 512 { return "a numbered notification source needs payloads of 4…512 bytes" }
        case .timestamped(let size):
            if size < 12 || size > 512 { return "a timestamped notification source needs payloads of 12…512 bytes" }
        case .sequenceByte(let size):
            if size < 0 || size > 512 { return "a notification source's payload size is not within 0…512" }
        case .cycle(let payloads):
            if payloads.isEmpty { return "a cycling notification source has no payloads" }
            if payloads.contains(where: { $0.count > 512 }) { return "a notification payload is longer than 512 bytes" }
        }
        return nil
    }
}
