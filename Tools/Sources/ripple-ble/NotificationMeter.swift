import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

/// What a notification's payload carries for `listen` and `bench` to check: nothing (`raw`), a
/// little-endian `UInt32` sequence number first (`numbered`), or that and the sender's `CLOCK_MONOTONIC`
/// send time in nanoseconds as a little-endian `UInt64` after it (`timestamped`, same machine only).
enum PayloadLayout: String, ExpressibleByArgument, CaseIterable, Sendable {
    case raw, numbered, timestamped
}

/// Counts notifications as they arrive, per source, and checks their sequence numbers and latency as
/// the payload layout allows.
///
/// Confined to one thread, the central's loop thread, where the listeners deliver: ``record(_:from:)``
/// and ``figures`` are called there only (a run reads the final figures through the loop), so the meter
/// takes no lock. Per notification it does what the C client's meter does: read the clock, count, store
/// the latency, check the sequence number.
final class NotificationMeter: Sendable {
    /// The figures so far.
    struct Figures: Sendable {
        /// Notifications received.
        var received = 0
        /// Bytes received (payloads).
        var bytes = 0
        /// Sequence numbers skipped and never seen (numbered layouts).
        var lost = 0
        /// Notifications that arrived after a later one (numbered layouts).
        var reordered = 0
        /// When the first and the latest notification arrived (monotonic nanoseconds).
        var firstArrival: UInt64?
        var lastArrival: UInt64 = 0
        /// Latency of each notification in nanoseconds (timestamped layout).
        var latencies: [UInt64] = []
    }

    private struct SourceState {
        var next: UInt32?
    }

    private let layout: PayloadLayout
    private let limit: Int
    /// Touched on the recording thread only (see above).
    @exclusivity(unchecked) private nonisolated(unsafe) var state: Figures
    @exclusivity(unchecked) private nonisolated(unsafe) var sources: [SourceState]

    /// A meter for `sources` sources of notifications laid out as `layout`, counting up to `limit`
    /// (nil: no limit; what arrives after is ignored); room for that many latencies is reserved up front.
    init(layout: PayloadLayout, sources: Int, limit: Int?) {
        self.layout = layout
        self.limit = limit ?? Int.max
        let expected = limit ?? 0
        var initial = Figures()
        if layout == .timestamped { initial.latencies.reserveCapacity(min(expected, 10_000_000)) }
        state = initial
        self.sources = Array(repeating: SourceState(), count: max(1, sources))
    }

    /// Records one notification from source `source`; returns how many have arrived in all, or nil when
    /// the limit was already reached (the notification is not counted). On the recording thread only.
    @discardableResult
    func record(_ payload: [UInt8], from source: Int) -> Int? {
        guard state.received < limit else { return nil }
        let now = Self.monotonicNanoseconds()
        state.received += 1
        state.bytes += payload.count
        if state.firstArrival == nil { state.firstArrival = now }
        state.lastArrival = now
        if layout == .timestamped, let sent = Self.little(payload, 4, 8), now >= sent {
            state.latencies.append(now - sent)
        }
        if layout != .raw, let sequence = Self.little(payload, 0, 4), sources.indices.contains(source) {
            Self.check(UInt32(truncatingIfNeeded: sequence), &sources[source], &state)
        }
        return state.received
    }

    /// The figures so far (on the recording thread only).
    var figures: Figures { state }

    private static func check(_ sequence: UInt32, _ source: inout SourceState, _ figures: inout Figures) {
        guard let next = source.next else {
            source.next = sequence &+ 1
            return
        }
        if sequence == next {
            source.next = next &+ 1
        } else if sequence &- next < 1 << 31 {
            figures.lost += Int(sequence &- next)
            source.next = sequence &+ 1
        } else {
            // A late one: it was counted as lost when a later one came.
            figures.reordered += 1
            figures.lost = max(0, figures.lost - 1)
        }
    }

    /// `count` bytes of `bytes` from `offset` as a little-endian integer.
    private static func little(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64? {
        guard offset >= 0, count >= 0, count <= 8, offset + count <= bytes.count else { return nil }
        // In place, as the C client reads it (no bounds check per byte: the guard checked them all).
        return bytes.withUnsafeBufferPointer { buffer in
            var value: UInt64 = 0
            for index in stride(from: offset + count - 1, through: offset, by: -1) {
                value = value << 8 | UInt64(buffer[index])
            }
            return value
        }
    }

    /// `CLOCK_MONOTONIC` now, in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// This process's CPU time (every thread, user and system), in nanoseconds.
    static func processCPUNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}

extension Array where Element == UInt64 {
    /// The value at `fraction` (0…1) of the sorted array, or nil when empty.
    func percentile(_ fraction: Double) -> UInt64? {
        guard !isEmpty else { return nil }
        let index = Swift.min(count - 1, Swift.max(0, Int((Double(count) * fraction).rounded(.up)) - 1))
        return self[index]
    }
}
