/// The subscription behind `merge` (``Publishers/Merge`` … ``Publishers/MergeMany``) and `flatMap`
/// (``Publishers/FlatMap``): it interleaves the values of many source publishers into one downstream.
///
/// Demand, as in Combine:
/// - While the downstream demand is finite, every source is asked for one value at a time: `.max(1)` when
///   it subscribes, and one more each time one of its values has been delivered. A value that arrives
///   when the downstream wants nothing is buffered and the source is not asked for more until that value
///   has been delivered (after the downstream's next request). So a well-behaved source has at most one
///   value buffered. `merge` keeps one slot per source (a newer value replaces an undelivered one) and
///   drains the slots in source order; `flatMap` keeps every buffered value and drains them in arrival
///   order.
/// - Once the downstream asks for `.unlimited`, buffered values are delivered and every source is asked
///   for `.unlimited`.
///
/// Serialisation: sources may send from any thread at once. The thread that finds nobody delivering
/// becomes the deliverer: it calls the downstream (never with the lock held), then keeps delivering
/// whatever others buffered meanwhile, then a pending completion. A value that arrives while another
/// thread — or an outer call on the same thread — is delivering is buffered for the deliverer instead
/// of being delivered re-entrantly, so synchronous sources do not grow the stack.
///
/// Completion: `.finished` once every source finished, the feeder (`flatMap`'s upstream) finished, and
/// nothing is buffered; the first failure is delivered at once (buffered values are dropped) after the
/// other subscriptions were cancelled.
@usableFromInline
final class FanIn<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Output = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    /// Which operator this subscription implements.
    @usableFromInline enum Flavor {
        /// `merge`: a fixed set of sources made before the subscription is handed downstream.
        case merge
        /// `flatMap`: sources made as the feeder (the upstream) publishes; the feeder is asked for
        /// `maxPublishers` at first and, when that is finite, for one more each time a source finishes.
        case flatMap(maxPublishers: Subscribers.Demand)
    }

    /// Where the downstream side stands. Not a ``SubscriptionLifecycle``: a fan-in has many upstream
    /// subscriptions (the feeder and one per source), each kept where it is used, and this is the state of
    /// the one downstream, which needs a state of its own (a failure decided while another thread delivers).
    @usableFromInline enum Status {
        case active
        /// A failure was decided while another thread was delivering; that thread hands it downstream.
        case failing(Failure)
        /// Completed or cancelled: nothing more reaches the downstream.
        case closed
    }

    /// What the delivering thread does next.
    @usableFromInline enum Step {
        case deliver(Output, thenRequestOneFrom: (any Subscription)?)
        case complete(Subscribers.Completion<Failure>)
        case idle
    }

    /// What a closing subscription hands out of the lock: subscriptions to cancel, and state to release
    /// only once the lock is released.
    @usableFromInline struct Detached {
        @usableFromInline let sourceSubscriptions: [any Subscription]
        @usableFromInline let feeder: (any Subscription)?
        @usableFromInline let sources: [Int: Source]
        @usableFromInline let slotted: [Source]
        @usableFromInline let queue: RingBuffer<(source: Source, value: Output)>

        @inlinable init(
            sourceSubscriptions: [any Subscription],
            feeder: (any Subscription)?,
            sources: [Int: Source],
            slotted: [Source],
            queue: RingBuffer<(source: Source, value: Output)>
        ) {
            self.sourceSubscriptions = sourceSubscriptions
            self.feeder = feeder
            self.sources = sources
            self.slotted = slotted
            self.queue = queue
        }
    }

    @usableFromInline let lock = Lock()
    @usableFromInline let downstream: Downstream
    @usableFromInline let isMerge: Bool
    @usableFromInline let requestsPublisherPerFinishedSource: Bool

    // Guarded by `lock`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var status = Status.active
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var demand = Subscribers.Demand.none
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isDelivering = false
    /// The sources that have not finished (including those still waiting for their subscription).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var live: [Int: Source] = [:]
    /// `merge` only: every source, in order, for draining their slots.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var slotted: [Source] = []
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var slotCount = 0
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var queue = RingBuffer<
        (source: Source, value: Output)
    >()
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var nextSourceIndex = 0
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var feeder: (any Subscription)?
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var feederAttached = false
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var feederFinished: Bool

    @inlinable init(_ flavor: Flavor, downstream: Downstream) {
        self.downstream = downstream
        switch flavor {
        case .merge:
            isMerge = true
            requestsPublisherPerFinishedSource = false
            feederFinished = true
        case .flatMap(let maxPublishers):
            isMerge = false
            requestsPublisherPerFinishedSource = maxPublishers != .unlimited
            feederFinished = false
        }
    }

    /// `"Merge"` or `"FlatMap"`.
    @usableFromInline var description: String { isMerge ? "Merge" : "FlatMap" }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }

    @usableFromInline var playgroundDescription: Any { description }

    // MARK: Sources and feeder

    /// `merge`: the subscribers for `count` publishers, all live from the start (call it before handing
    /// the subscription downstream).
    @inlinable func makeSources(count: Int) -> [Source] {
        lock.withLock {
            let sources = (0..<count).map { Source(parent: self, index: nextSourceIndex + $0) }
            for source in sources {
                live[source.index] = source
            }
            slotted += sources
            nextSourceIndex += count
            return sources
        }
    }

    /// `flatMap`: a new source subscriber, counted as live until it finishes; `nil` once the
    /// subscription closed.
    @inlinable func makeSource() -> Source? {
        lock.withLock {
            guard case .active = status else { return nil }
            let source = Source(parent: self, index: nextSourceIndex)
            nextSourceIndex += 1
            live[source.index] = source
            return source
        }
    }

    /// Takes `flatMap`'s upstream subscription; `false` (the caller cancels it) when one was already
    /// taken or the subscription closed.
    @inlinable func attachFeeder(_ subscription: any Subscription) -> Bool {
        lock.withLock {
            guard case .active = status, !feederAttached, !feederFinished else { return false }
            feederAttached = true
            feeder = subscription
            return true
        }
    }

    /// `flatMap`'s upstream completed: a failure fails everything, `.finished` completes once every
    /// source finished.
    @inlinable func feederCompleted(_ completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let step: Step = lock.withLock {
                guard case .active = status, !feederFinished else { return .idle }
                feederFinished = true
                feeder = nil
                return claimDelivery()
            }
            run(step)
        case .failure(let error):
            fail(error, from: nil)
        }
    }

    @inlinable func sourceReceived(_ subscription: any Subscription, for source: Source) {
        let initialDemand: Subscribers.Demand? = lock.withLock {
            guard case .active = status, !source.isSubscribed, !source.isFinished else { return nil }
            source.isSubscribed = true
            source.subscription = subscription
            return demand == .unlimited ? .unlimited : .max(1)
        }
        if let initialDemand {
            subscription.request(initialDemand)
        } else {
            subscription.cancel()
        }
    }

    @inlinable func sourceReceived(_ value: Output, from source: Source) -> Subscribers.Demand {
        let deliverNow: Bool = lock.withLock {
            guard case .active = status, !source.isFinished else { return false }
            if isDelivering || demand == .none {
                buffer(value, from: source)
                return false
            }
            demand -= 1
            isDelivering = true
            return true
        }
        guard deliverNow else { return .none }
        let more = downstream.receive(value)
        // The common case (still active, nothing buffered meanwhile, not complete) gives up the delivering
        // role in this critical section; otherwise the delivery loop takes over.
        let (isIdle, isUnlimited): (Bool, Bool) = lock.withLock {
            demand += more
            let isIdle = isActive && slotCount == 0 && queue.isEmpty && !(feederFinished && live.isEmpty)
            if isIdle { isDelivering = false }
            return (isIdle, demand == .unlimited)
        }
        if !isIdle { run(lock.withLock { nextStep() }) }
        return isUnlimited ? .none : .max(1)
    }

    @inlinable func sourceCompleted(_ completion: Subscribers.Completion<Failure>, from source: Source) {
        guard case .failure(let error) = completion else {
            let (step, feederToAsk): (Step, (any Subscription)?) = lock.withLock {
                guard case .active = status, !source.isFinished else { return (.idle, nil) }
                source.isFinished = true
                source.subscription = nil
                live[source.index] = nil
                return (claimDelivery(), requestsPublisherPerFinishedSource ? feeder : nil)
            }
            run(step)
            feederToAsk?.request(.max(1))
            return
        }
        fail(error, from: source)
    }

    // MARK: Subscription

    /// Adds to the downstream demand and delivers buffered values it now allows; on the switch to
    /// `.unlimited`, asks every source for `.unlimited`.
    @inlinable func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let (step, toUnlimit): (Step, [any Subscription]) = lock.withLock {
            guard case .active = status else { return (.idle, []) }
            let wasUnlimited = self.demand == .unlimited
            self.demand += demand
            let toUnlimit = !wasUnlimited && self.demand == .unlimited ? liveSubscriptions() : []
            return (claimDelivery(), toUnlimit)
        }
        run(step)
        for subscription in toUnlimit {
            subscription.request(.unlimited)
        }
    }

    /// Cancels every source, then the feeder; nothing more reaches the downstream.
    @inlinable func cancel() {
        let detached: Detached? = lock.withLock {
            switch status {
            case .closed:
                return nil
            case .failing:
                status = .closed
                return nil
            case .active:
                status = .closed
                return detachAll(sparing: nil)
            }
        }
        guard let detached else { return }
        for subscription in detached.sourceSubscriptions {
            subscription.cancel()
        }
        detached.feeder?.cancel()
    }

    // MARK: Delivery

    /// Fails the subscription: cancels the other sources (`merge` cancels the failed one too, as
    /// Combine does) and the feeder unless it is what failed, then delivers the failure, at once or by
    /// the thread currently delivering.
    @inlinable func fail(_ error: Failure, from failedSource: Source?) {
        let outcome: (detached: Detached, deliverNow: Bool)? = lock.withLock {
            guard case .active = status else { return nil }
            failedSource?.isFinished = true
            let detached = detachAll(sparing: isMerge ? nil : failedSource)
            if isDelivering {
                status = .failing(error)
                return (detached, false)
            }
            status = .closed
            return (detached, true)
        }
        guard let outcome else { return }
        for subscription in outcome.detached.sourceSubscriptions {
            subscription.cancel()
        }
        if failedSource != nil {
            outcome.detached.feeder?.cancel()
        }
        if outcome.deliverNow {
            downstream.receive(completion: .failure(error))
        }
    }

    /// Delivers `first` and whatever follows it, until nothing more can be delivered now.
    @inlinable func run(_ first: Step) {
        var step = first
        while true {
            switch step {
            case .idle:
                return
            case .complete(let completion):
                downstream.receive(completion: completion)
                return
            case .deliver(let value, let source):
                let more = downstream.receive(value)
                source?.request(.max(1))
                step = lock.withLock {
                    demand += more
                    return nextStep()
                }
            }
        }
    }

    /// Whether the subscription is active (lock held).
    @inlinable var isActive: Bool {
        if case .active = status { return true }
        return false
    }

    /// Becomes the delivering thread if nobody is, and returns the first step (lock held).
    @inlinable func claimDelivery() -> Step {
        guard !isDelivering else { return .idle }
        isDelivering = true
        return nextStep()
    }

    /// The delivering thread's next step; gives up the delivering role when there is nothing to do
    /// (lock held).
    @inlinable func nextStep() -> Step {
        switch status {
        case .closed:
            isDelivering = false
            return .idle
        case .failing(let error):
            status = .closed
            isDelivering = false
            return .complete(.failure(error))
        case .active:
            break
        }
        if demand > 0, let (source, value) = takeBuffered() {
            demand -= 1
            return .deliver(value, thenRequestOneFrom: demand == .unlimited ? nil : source.subscription)
        }
        if feederFinished, live.isEmpty, slotCount == 0, queue.isEmpty {
            status = .closed
            isDelivering = false
            slotted = []
            return .complete(.finished)
        }
        isDelivering = false
        return .idle
    }

    /// Keeps a value that cannot be delivered now (lock held).
    @inlinable func buffer(_ value: Output, from source: Source) {
        if isMerge, demand != .unlimited {
            if source.slot == nil { slotCount += 1 }
            source.slot = value
        } else {
            queue.append((source, value))
        }
    }

    /// The oldest buffered value: `merge`'s slots first, in source order, then the queue (lock held).
    @inlinable func takeBuffered() -> (Source, Output)? {
        if slotCount > 0 {
            for source in slotted {
                if let value = source.slot {
                    source.slot = nil
                    slotCount -= 1
                    return (source, value)
                }
            }
        }
        return queue.popFirst()
    }

    /// The subscriptions of the live sources, in source order (lock held).
    @inlinable func liveSubscriptions() -> [any Subscription] {
        live.values.sorted { $0.index < $1.index }.compactMap(\.subscription)
    }

    /// Forgets every source, buffered value and the feeder, returning them for the caller to cancel and
    /// release once the lock is released (lock held).
    @inlinable func detachAll(sparing spared: Source?) -> Detached {
        var subscriptions: [any Subscription] = []
        for source in live.values.sorted(by: { $0.index < $1.index }) {
            if source !== spared, let subscription = source.subscription {
                subscriptions.append(subscription)
            }
            source.subscription = nil
        }
        let detached = Detached(
            sourceSubscriptions: subscriptions,
            feeder: feeder,
            sources: live,
            slotted: slotted,
            queue: queue
        )
        live = [:]
        slotted = []
        slotCount = 0
        queue = RingBuffer()
        feeder = nil
        return detached
    }
}

extension FanIn {
    /// The subscriber attached to one source publisher; described like its subscription.
    @usableFromInline
    final class Source: Subscriber, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible {
        @usableFromInline typealias Input = Downstream.Input
        @usableFromInline typealias Failure = Downstream.Failure

        @usableFromInline let parent: FanIn
        @usableFromInline let index: Int

        // Guarded by the parent's lock.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var subscription: (any Subscription)?
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isSubscribed = false
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isFinished = false
        /// `merge` only: the value that arrived without demand.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var slot: Input?

        @inlinable init(parent: FanIn, index: Int) {
            self.parent = parent
            self.index = index
        }

        @usableFromInline var description: String { parent.description }

        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: ["parentSubscription": parent.combineIdentifier])
        }

        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            parent.sourceReceived(subscription, for: self)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            parent.sourceReceived(input, from: self)
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            parent.sourceCompleted(completion, from: self)
        }
    }
}
