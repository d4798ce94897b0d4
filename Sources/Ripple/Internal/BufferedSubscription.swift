/// One subscriber's end of an event stream: a bounded buffer between what a source offers and what the
/// subscriber demands, with a rule for the value that does not fit, exact counts, and deliveries in a
/// chosen ``DeliveryContext``.
///
/// The layers above build their event streams on it: RippleDBus's signal streams (which end on overflow),
/// RippleBlueZ's notification listeners and event streams (whose owners choose the rule).
///
/// - The source calls ``offer(_:)`` and ``finish(_:)`` from any thread; the subscriber calls
///   `request(_:)` and `cancel()` from any thread. Values are delivered in the order offered, one at a
///   time, never re-entering the subscriber, in the delivery context.
/// - A value that finds the subscriber with demand and nothing waiting, offered where deliveries happen,
///   goes straight to it (one lock); otherwise it waits in the buffer.
/// - When `capacity` values wait and one more comes, the ``OverflowRule`` decides: drop the oldest, drop
///   the arriving one, or end the stream at once (the waiting values are dropped with the arriving one,
///   and the completion goes out without waiting for demand). Every drop is counted.
/// - A completion from the source goes out after the values already waiting, as demand allows; with
///   nothing waiting, at once.
/// - `onEnd` runs once when the stream ends for whatever reason: cancelled, completed, overflowed.
/// - A source may take the subscription in before its subscriber has it (`awaitingHandover`), so that
///   nothing offered meanwhile is lost: until ``handedOver()`` nothing is delivered — values wait (the
///   overflow rule applies), and a completion, the overflow's included, waits too, so that it cannot reach
///   the subscriber before its subscription.
///
/// State lives in one `State` value beside a ``Lock`` and follows its rule: touched only inside the lock,
/// and no subscriber or closure is called with the lock held.
@usableFromInline
package final class BufferedSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, Sendable {
    @usableFromInline package typealias Output = Downstream.Input
    @usableFromInline package typealias Failure = Downstream.Failure

    /// What happens to a value offered when `capacity` values already wait.
    @usableFromInline
    package enum OverflowRule: Sendable {
        /// Drops the oldest waiting value and keeps the arriving one.
        case dropOldest
        /// Drops the arriving value.
        case dropNewest
        /// Ends the stream at once with the completion made from the capacity.
        case end(@Sendable (_ capacity: Int) -> Subscribers.Completion<Failure>)
    }

    @usableFromInline
    struct State {
        @usableFromInline var downstream: Downstream?
        @usableFromInline var buffer = RingBuffer<Output>()
        @usableFromInline var demand = Subscribers.Demand.none
        /// A delivery is under way (a value is in the subscriber's hands).
        @usableFromInline var delivering = false
        @usableFromInline var completion: Subscribers.Completion<Failure>?
        /// The completion goes out before the waiting values (there are none left: an overflow).
        @usableFromInline var completesAtOnce = false
        @usableFromInline var onEnd: (() -> Void)?
        /// The subscriber is still being handed the subscription: nothing is delivered.
        @usableFromInline var awaitingHandover: Bool

        @usableFromInline
        init(downstream: Downstream, onEnd: (() -> Void)?, awaitingHandover: Bool) {
            self.downstream = downstream
            self.onEnd = onEnd
            self.awaitingHandover = awaitingHandover
        }
    }

    /// What one turn of the delivery loop does.
    @usableFromInline
    enum Step {
        case value(Downstream, Output)
        case complete(Downstream, Subscribers.Completion<Failure>, (() -> Void)?)
    }

    /// What an offered value met.
    @usableFromInline
    enum Outcome {
        case ignored, kept
        case direct(Downstream)
        case dropped, overflowed
    }

    @usableFromInline let capacity: Int
    @usableFromInline let overflow: OverflowRule
    @usableFromInline let counters: StreamCounters?
    @usableFromInline let context: DeliveryContext
    @usableFromInline package let description: String

    @usableFromInline let lock = Lock()
    /// Touched only inside `lock`, which makes every access exclusive: the dynamic exclusivity check (a
    /// thread-local look-up per access, several per value) is skipped.
    @usableFromInline @exclusivity(unchecked) nonisolated(unsafe) var state: State

    /// A subscription for `downstream`, which the caller then hands it with `receive(subscription:)`.
    ///
    /// - Parameters:
    ///   - downstream: the subscriber.
    ///   - capacity: the most values kept waiting for demand (at least 1).
    ///   - overflow: what happens to one more.
    ///   - counters: where received, delivered and dropped values are counted, if anywhere.
    ///   - context: where values and the completion are delivered.
    ///   - description: the subscription's description (its stream's name).
    ///   - onEnd: runs once when the stream ends (cancelled, completed or overflowed), outside the lock.
    ///   - awaitingHandover: true when the source takes the subscription in before the caller hands it to
    ///     `downstream`: nothing is delivered until ``handedOver()``.
    package init(
        downstream: Downstream, capacity: Int, overflow: OverflowRule, counters: StreamCounters? = nil,
        context: DeliveryContext = .callerThread, description: String, onEnd: (() -> Void)? = nil,
        awaitingHandover: Bool = false
    ) {
        self.capacity = Swift.max(capacity, 1)
        self.overflow = overflow
        self.counters = counters
        self.context = context
        self.description = description
        state = State(downstream: downstream, onEnd: onEnd, awaitingHandover: awaitingHandover)
    }

    /// The subscriber has its subscription (it returned from `receive(subscription:)`): what waited for
    /// that — values it asked for meanwhile, a completion — is delivered in the delivery context.
    package func handedOver() {
        let pending = lock.withLock { () -> Bool in
            guard state.awaitingHandover else { return false }
            state.awaitingHandover = false
            return state.downstream != nil && (!state.buffer.isEmpty || state.completion != nil)
        }
        if pending { context.run { self.drain() } }
    }

    /// Sets what runs when the stream ends and returns true; returns false, keeping nothing, when the
    /// stream has already ended (the caller must then not register it anywhere: nothing would unregister
    /// it).
    ///
    /// - Parameter onEnd: runs once when the stream ends, outside the lock.
    /// - Returns: whether the stream is still live.
    package func setOnEnd(_ onEnd: @escaping () -> Void) -> Bool {
        lock.withLock { () -> Bool in
            guard state.downstream != nil else { return false }
            state.onEnd = onEnd
            return true
        }
    }

    /// Whether the subscriber is still there: it has neither cancelled nor been completed.
    package var isActive: Bool {
        lock.withLock { state.downstream != nil }
    }

    /// The number of values waiting for demand.
    package var waiting: Int {
        lock.withLock { state.buffer.count }
    }

    // MARK: Source side

    /// Offers `value`: delivered now if it can be, else kept; past the capacity, the overflow rule applies.
    /// Ignored once the stream has ended or its completion is due.
    ///
    /// - Parameter value: the value.
    @inlinable
    package func offer(_ value: Output) {
        let here = context.isCurrent()
        let outcome = lock.withLock { () -> Outcome in
            guard state.downstream != nil, state.completion == nil else { return .ignored }
            counters?.countReceived()
            if here, !state.delivering, !state.awaitingHandover, state.buffer.isEmpty, state.demand > .none,
                let downstream = state.downstream
            {
                state.demand -= 1
                state.delivering = true
                return .direct(downstream)
            }
            guard state.buffer.count >= capacity else {
                state.buffer.append(value)
                return .kept
            }
            switch overflow {
            case .dropOldest:
                _ = state.buffer.popFirst()
                state.buffer.append(value)
                counters?.countDropped(1)
                return .dropped
            case .dropNewest:
                counters?.countDropped(1)
                return .dropped
            case .end(let completion):
                counters?.countDropped(state.buffer.count + 1)
                state.buffer.removeAll()
                state.completion = completion(capacity)
                state.completesAtOnce = true
                return .overflowed
            }
        }
        switch outcome {
        case .ignored:
            return
        case .kept:
            if here { drain() } else { context.enqueue { self.drain() } }
        case .direct(let downstream):
            counters?.countDelivered()
            let more = downstream.receive(value)
            let pending = lock.withLock { () -> Bool in
                state.demand += more
                state.delivering = false
                return !state.buffer.isEmpty || state.completion != nil
            }
            // What arrived meanwhile (a value from another thread, a completion) is handed on.
            if pending { drain() }
        case .dropped:
            counters?.reportDrops()
        case .overflowed:
            counters?.reportDrops()
            if here { drain() } else { context.enqueue { self.drain() } }
        }
    }

    /// Ends the stream with `completion` once the values waiting have been delivered. Ignored when the
    /// stream has ended or a completion is already due.
    ///
    /// - Parameter completion: how the stream ends.
    @inlinable
    package func finish(_ completion: Subscribers.Completion<Failure>) {
        let due = lock.withLock { () -> Bool in
            guard state.downstream != nil, state.completion == nil else { return false }
            state.completion = completion
            return true
        }
        if due { context.run { self.drain() } }
    }

    // MARK: Subscriber side

    /// Adds `demand`; values waiting are delivered in the delivery context.
    ///
    /// - Parameter demand: how many more values the subscriber wants (not `.none`).
    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let pending = lock.withLock { () -> Bool in
            guard state.downstream != nil else { return false }
            state.demand += demand
            return !state.buffer.isEmpty || state.completion != nil
        }
        if pending { context.run { self.drain() } }
    }

    /// Ends the stream: nothing more is delivered, the waiting values are released and `onEnd` runs.
    @usableFromInline
    package func cancel() {
        let onEnd = lock.withLock { () -> (() -> Void)? in
            guard state.downstream != nil else { return nil }
            state.downstream = nil
            state.buffer.removeAll()
            defer { state.onEnd = nil }
            return state.onEnd
        }
        onEnd?()
    }

    // MARK: Delivering

    /// Delivers what demand allows, then the completion when it is due; returns at once when another
    /// call is delivering (that one goes on with what is there).
    @inlinable
    func drain() {
        while true {
            let step = lock.withLock { () -> Step? in
                guard !state.delivering, !state.awaitingHandover, let downstream = state.downstream else { return nil }
                if let completion = state.completion, state.completesAtOnce || state.buffer.isEmpty {
                    state.downstream = nil
                    state.buffer.removeAll()
                    defer { state.onEnd = nil }
                    return .complete(downstream, completion, state.onEnd)
                }
                guard state.demand > .none, let value = state.buffer.popFirst() else { return nil }
                state.demand -= 1
                state.delivering = true
                return .value(downstream, value)
            }
            switch step {
            case nil:
                return
            case .value(let downstream, let value)?:
                counters?.countDelivered()
                let more = downstream.receive(value)
                lock.withLock {
                    state.demand += more
                    state.delivering = false
                }
            case .complete(let downstream, let completion, let onEnd)?:
                onEnd?()
                downstream.receive(completion: completion)
                return
            }
        }
    }
}
