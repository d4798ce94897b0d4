import Ripple

/// The exact counts of an event stream's subscribers, updated as values arrive; read them from any
/// thread.
///
/// While a stream is live, `received` = `delivered` + `dropped` + the values waiting in its buffer. One
/// statistics object may count several subscriptions (every subscriber of the publisher it was given to).
public final class EventStatistics: Sendable {
    let counters: StreamCounters
    private let totals: StateSubject<Int, Never>

    /// Counters at zero.
    public init() {
        let totals = StateSubject<Int, Never>(0)
        self.totals = totals
        counters = StreamCounters(dropObserver: { total in totals.modify { $0 = Swift.max($0, total) } })
    }

    /// The values that arrived for the stream's subscribers while they were live.
    public var received: Int { counters.received }
    /// The values passed to the subscribers.
    public var delivered: Int { counters.delivered }
    /// The values dropped by the buffer's policy.
    public var dropped: Int { counters.dropped }

    /// The dropped total now, then as it grows — a *state* stream: each new subscriber gets the current
    /// total at once; under slow demand, totals coalesce to the latest (a total loses nothing by
    /// coalescing), and the last one delivered is never stale. Delivered on the thread that dropped (the
    /// loop's), or on the thread that requests when it finds a newer total.
    public var drops: AnyPublisher<Int, Never> {
        totals.eraseToAnyPublisher()
    }
}
