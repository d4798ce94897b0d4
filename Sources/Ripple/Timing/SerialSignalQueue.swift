/// Serialises the signals an operator sends to one subscriber (its downstream, or its upstream
/// subscription), whichever threads they come from.
///
/// Time operators hand their signals to a scheduler, and a scheduler may run them on any thread, or
/// inline on the thread that scheduled them (``ImmediateScheduler``), possibly while a signal is being
/// delivered (a downstream that requests more from inside `receive(_:)`, so that a synchronous upstream
/// sends the next value at once). The queue keeps those deliveries from overlapping or nesting:
///
/// - The operator *offers* each signal with ``offer(_:)`` while holding its own lock. An offer made
///   while no delivery runs makes the caller the *deliverer*: it gets the signal back and must deliver
///   it, then call ``next()`` (under the lock again) and deliver what that returns, until `next()`
///   returns `nil`. An offer made while a delivery runs (on another thread, or re-entrantly on the
///   deliverer's) is queued and returns `nil`; the deliverer delivers it, in order. Several signals
///   decided in one critical section are queued with ``append(_:)`` and then ``claim()``ed.
/// - Nothing is ever delivered with the lock held, and a re-entrant signal does not grow the stack: it
///   is delivered by the loop of the outer delivery (a trampoline).
///
/// The queue is a value stored among the operator's lock-guarded state; it allocates only when signals
/// pile up, and reuses its storage afterwards.
package struct SerialSignalQueue<Signal> {
    /// Whether a deliverer is running.
    private var isDelivering = false
    /// Signals offered while a deliverer runs (or appended for the next one), oldest first.
    private var pending = RingBuffer<Signal>()

    package init() {}

    /// Offers one signal. Returns it back when the caller has become the deliverer and must deliver it
    /// (then call ``next()``); returns `nil` when it was queued for the running deliverer. Lock held.
    package mutating func offer(_ signal: Signal) -> Signal? {
        if isDelivering {
            pending.append(signal)
            return nil
        }
        isDelivering = true
        return signal
    }

    /// Queues `signal`; follow a batch of appends with ``claim()``. Lock held.
    package mutating func append(_ signal: Signal) {
        pending.append(signal)
    }

    /// Makes the caller the deliverer if none runs and something is queued, and returns the first signal
    /// it must deliver; `nil` when a deliverer already runs (it will deliver what was queued) or nothing
    /// is queued. Lock held.
    package mutating func claim() -> Signal? {
        guard !isDelivering, let signal = pending.popFirst() else { return nil }
        isDelivering = true
        return signal
    }

    /// The next signal the deliverer must deliver, or `nil` when there is none, in which case the caller
    /// stops being the deliverer. Lock held.
    package mutating func next() -> Signal? {
        if let signal = pending.popFirst() { return signal }
        isDelivering = false
        return nil
    }

    /// Drops every queued signal (after a cancellation: nothing more is delivered). A running deliverer
    /// finds nothing more and stops. Lock held.
    package mutating func discardPending() {
        pending.removeAll()
    }
}
