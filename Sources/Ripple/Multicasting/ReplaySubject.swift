/// A subject that remembers the last `capacity` values sent to it, and its completion, and replays
/// them to every new subscriber before the values sent after it attached. The engine behind
/// ``Publishers/ShareReplay``.
///
/// ## Per-subscriber delivery
/// Each subscriber has its own queue and is delivered to by one thread at a time (never overlapping,
/// always in the order the values were sent); different subscribers may be delivered to concurrently
/// by different senders. Whoever finds a subscriber idle with something to deliver (a sender, a
/// `request`, the subscribing thread) delivers to it until it is idle again; anything arriving for
/// that subscriber meanwhile, also re-entrantly from inside its `receive`, is queued and delivered by
/// that same loop, so re-entrant calls neither deadlock nor grow the stack.
///
/// ## Demand and the pending-value policy
/// A subscriber never receives more values than it requested. A value that arrives for a subscriber:
/// - with outstanding demand is delivered (or queued behind the values it is already being given);
///   nothing demanded is ever dropped, so a subscriber with unlimited demand receives every value;
/// - without outstanding demand is kept in that subscriber's *pending* queue, which holds at most
///   `capacity` values: when full, the oldest pending value is dropped. Later demand takes values from
///   the pending queue first, oldest first. With `capacity == 0` such a value is simply not delivered
///   to that subscriber (as a `PassthroughSubject` does).
///
/// A new subscriber starts with the remembered values as its pending queue: it receives them as it
/// requests (with demand `.max(1)`, only the oldest, the next when it asks again), then live values.
///
/// ## Completion
/// After `send(completion:)` later values are ignored. Each subscriber receives the completion (finished
/// or failure alike) after the values still pending for it, once it has requested them; a subscriber
/// that attaches after the completion receives the remembered values as it requests them, then the
/// completion. An upstream subscription handed to the subject after its completion is cancelled.
///
/// ## Upstreams
/// Upstream subscriptions given by `send(subscription:)` (or made by ``connect(to:)``) are asked for
/// unlimited values as soon as any subscriber has requested something, and cancelled when the subject
/// goes away.
internal final class ReplaySubject<Output, Failure: Error>: Subject, Sendable {
    private let core: ReplayCore<Output, Failure>

    /// Creates a subject that remembers the last `capacity` values (none if `capacity <= 0`); its
    /// subscriptions describe themselves as `name`.
    init(capacity: Int, name: String = "ReplaySubject") {
        core = ReplayCore(capacity: Swift.max(0, capacity), name: name)
    }

    deinit {
        core.cancelUpstreams()
    }

    /// Whether the subject has received a completion.
    var isCompleted: Bool {
        core.isCompleted
    }

    /// Attaches `subscriber`: it receives the remembered values as it requests them, then the live
    /// values, then the completion.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.subscribe(subscriber)
    }

    /// Remembers `value` and delivers or queues it for every subscriber. Ignored after a completion.
    func send(_ value: Output) {
        core.send(value)
    }

    /// Remembers `completion`: every subscriber receives it after its pending values. Later sends are
    /// ignored.
    func send(completion: Subscribers.Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Keeps `subscription` and requests unlimited values from it once any subscriber has demand;
    /// cancels it at once if the subject has completed.
    func send(subscription: any Subscription) {
        core.send(subscription: subscription)
    }

    /// Subscribes this subject to `upstream`, like ``Publisher/subscribe(_:)-(Subject)``, except that
    /// cancelling the returned cancellable also makes the subject forget that upstream subscription
    /// (so connecting and disconnecting repeatedly keeps nothing behind).
    func connect<Upstream: Publisher>(to upstream: Upstream) -> AnyCancellable
    where Upstream.Output == Output, Upstream.Failure == Failure {
        let subscriber = ReplayUpstreamSubscriber(core: core)
        upstream.subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}

/// The state and delivery loop of a ``ReplaySubject``.
///
/// Every field is guarded by ``lock``. A conduit's "core" fields are also touched only under it; its
/// "owner" fields only by the thread that holds the conduit's delivery (``ReplayConduit/isDelivering``),
/// which it takes and gives up under the lock.
private final class ReplayCore<Output, Failure: Error>: Sendable {
    typealias Conduit = ReplayConduit<Output, Failure>

    let lock = Lock()
    let name: String
    let capacity: Int
    /// The last `capacity` values sent, oldest first.
    private nonisolated(unsafe) var history = RingBuffer<Output>()
    private nonisolated(unsafe) var terminal: Subscribers.Completion<Failure>?
    /// Subscribers attached before the completion and not cancelled.
    private nonisolated(unsafe) var conduits = ContiguousArray<Conduit>()
    private nonisolated(unsafe) var upstreams: [any Subscription] = []
    private nonisolated(unsafe) var hasAnyDownstreamDemand = false
    /// Storage for the list of conduits a delivery loop owns, reused so that steady-state delivery
    /// allocates nothing; a thread takes it (leaving an empty array) and puts it back when done.
    private nonisolated(unsafe) var reusableBatch = ContiguousArray<Conduit>()

    init(capacity: Int, name: String) {
        self.capacity = capacity
        self.name = name
    }

    var isCompleted: Bool {
        lock.withLock { terminal != nil }
    }

    // MARK: Subject

    func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = ReplaySubscription(core: self, downstream: subscriber)
        lock.withLock {
            conduit.pending = history
            if let terminal {
                conduit.completion = terminal
            } else {
                conduits.append(conduit)
            }
        }
        // The conduit starts owned by this thread: what arrives while the subscriber handles its
        // subscription is queued, and delivered below once `receive(subscription:)` has returned.
        subscriber.receive(subscription: conduit)
        var batch: ContiguousArray<Conduit> = lock.withLock {
            if conduit.phase == .subscribing { conduit.phase = .subscribed }
            var batch = takeBatch()
            batch.append(conduit)
            return batch
        }
        drain(&batch)
    }

    func send(_ value: Output) {
        var batch: ContiguousArray<Conduit> = lock.withLock {
            guard terminal == nil else { return [] }
            if capacity > 0 {
                history.append(value)
                if history.count > capacity { _ = history.popFirst() }
            }
            var batch = takeBatch()
            for conduit in conduits {
                if conduit.demand == .none {
                    guard capacity > 0 else { continue }
                    conduit.pending.append(value)
                    if conduit.pending.count > capacity { _ = conduit.pending.popFirst() }
                    continue
                }
                conduit.demand -= 1
                if conduit.isDelivering {
                    conduit.owed.append(value)
                } else {
                    // Idle with demand: nothing is queued for it, so it takes this value directly.
                    conduit.isDelivering = true
                    batch.append(conduit)
                }
            }
            if batch.isEmpty { restoreBatch(&batch) }
            return batch
        }
        guard !batch.isEmpty else { return }
        for conduit in batch {
            conduit.returnedDemand = conduit.deliver(value)
        }
        drain(&batch)
    }

    func send(completion: Subscribers.Completion<Failure>) {
        var detached = ContiguousArray<Conduit>()
        var batch: ContiguousArray<Conduit> = lock.withLock {
            guard terminal == nil else { return [] }
            terminal = completion
            var batch = takeBatch()
            for conduit in conduits {
                conduit.completion = completion
                if !conduit.isDelivering && conduit.pending.isEmpty {
                    conduit.isDelivering = true
                    batch.append(conduit)
                }
            }
            // Released after the lock: the last reference to a conduit may be this list.
            swap(&detached, &conduits)
            return batch
        }
        drain(&batch)
        withExtendedLifetime(detached) {}
    }

    func send(subscription: any Subscription) {
        let (completed, requestNow) = lock.withLock { () -> (Bool, Bool) in
            guard terminal == nil else { return (true, false) }
            upstreams.append(subscription)
            return (false, hasAnyDownstreamDemand)
        }
        if completed {
            subscription.cancel()
        } else if requestNow {
            subscription.request(.unlimited)
        }
    }

    /// Forgets the upstream subscription `subscription` (it was cancelled or completed).
    func detach(_ subscription: any Subscription) {
        let identifier = subscription.combineIdentifier
        lock.withLock {
            upstreams.removeAll { $0.combineIdentifier == identifier }
        }
    }

    /// Cancels every upstream subscription (when the subject goes away).
    func cancelUpstreams() {
        let subscriptions: [any Subscription] = lock.withLock {
            let subscriptions = upstreams
            upstreams = []
            return subscriptions
        }
        for subscription in subscriptions { subscription.cancel() }
    }

    // MARK: Conduits

    func request(_ demand: Subscribers.Demand, for conduit: Conduit) {
        var upstreamsToRequest: [any Subscription] = []
        var batch: ContiguousArray<Conduit> = lock.withLock {
            guard conduit.phase != .finished else { return [] }
            conduit.demand += demand
            conduit.movePendingToOwed()
            if !hasAnyDownstreamDemand {
                hasAnyDownstreamDemand = true
                upstreamsToRequest = upstreams
            }
            guard conduit.phase == .subscribed, !conduit.isDelivering, conduit.hasSomethingToDeliver else {
                return []
            }
            conduit.isDelivering = true
            var batch = takeBatch()
            batch.append(conduit)
            return batch
        }
        for upstream in upstreamsToRequest { upstream.request(.unlimited) }
        guard !batch.isEmpty else { return }
        drain(&batch)
    }

    func cancel(_ conduit: Conduit) {
        // The queued values are taken out and released after the lock.
        var owed = RingBuffer<Output>()
        var pending = RingBuffer<Output>()
        let releaseNow = lock.withLock { () -> Bool in
            guard conduit.phase != .finished else { return false }
            conduit.phase = .finished
            swap(&owed, &conduit.owed)
            swap(&pending, &conduit.pending)
            conduit.completion = nil
            if let index = conduits.firstIndex(where: { $0 === conduit }) {
                conduits.remove(at: index)
            }
            // A thread delivering to it releases the subscriber when it sees the cancellation.
            guard !conduit.isDelivering else { return false }
            conduit.isDelivering = true
            return true
        }
        if releaseNow { conduit.releaseDownstream() }
        withExtendedLifetime((owed, pending)) {}
    }

    // MARK: Delivery

    /// Takes the reusable batch storage (empty) for a delivery loop. Lock held.
    private func takeBatch() -> ContiguousArray<Conduit> {
        var batch = ContiguousArray<Conduit>()
        swap(&batch, &reusableBatch)
        return batch
    }

    /// Puts a finished loop's (empty) batch storage back for reuse. Lock held.
    private func restoreBatch(_ batch: inout ContiguousArray<Conduit>) {
        batch.removeAll(keepingCapacity: true)
        if batch.capacity > reusableBatch.capacity { swap(&batch, &reusableBatch) }
        batch = []
    }

    /// Delivers to the conduits in `batch`, which the caller owns, until each of them is idle, finished
    /// or cancelled. Each round takes the lock once for all of them: it adds the demand they returned,
    /// picks what each receives next, and gives up the idle ones.
    private func drain(_ batch: inout ContiguousArray<Conduit>) {
        while true {
            let isDone = lock.withLock { () -> Bool in
                var kept = 0
                for index in batch.indices where prepareNextStep(batch[index]) {
                    batch.swapAt(kept, index)
                    kept += 1
                }
                batch.removeLast(batch.count - kept)
                guard batch.isEmpty else { return false }
                restoreBatch(&batch)
                return true
            }
            if isDone { return }
            var kept = 0
            for index in batch.indices where batch[index].performStep() {
                batch.swapAt(kept, index)
                kept += 1
            }
            batch.removeLast(batch.count - kept)
        }
    }

    /// Decides what the owner delivers next to `conduit`: returns `false` (and gives up ownership) when
    /// there is nothing. Lock held.
    private func prepareNextStep(_ conduit: Conduit) -> Bool {
        if conduit.returnedDemand != .none {
            if conduit.phase != .finished {
                conduit.demand += conduit.returnedDemand
                conduit.movePendingToOwed()
            }
            conduit.returnedDemand = .none
        }
        if conduit.phase == .finished {
            conduit.step = .release
            return true
        }
        if let value = conduit.owed.popFirst() {
            conduit.step = .value(value)
            return true
        }
        if conduit.pending.isEmpty, let completion = conduit.completion {
            conduit.completion = nil
            conduit.phase = .finished
            conduit.step = .completion(completion)
            return true
        }
        conduit.isDelivering = false
        return false
    }
}

/// One subscriber's subscription to a ``ReplaySubject``: its demand, queues and phase.
///
/// Fields marked "core" are guarded by the core's lock; fields marked "owner" are used only by the
/// thread that holds ``isDelivering``.
private class ReplayConduit<Output, Failure: Error>: Subscription, CustomStringConvertible {
    /// Not a ``SubscriptionLifecycle``: the subject's side of one downstream subscription, holding no upstream.
    enum Phase {
        /// `receive(subscription:)` is running; the subscribing thread owns the delivery.
        case subscribing
        /// Values and the completion may be delivered.
        case subscribed
        /// Cancelled, or the completion was taken for delivery; nothing more is delivered.
        case finished
    }

    /// What the owner delivers next.
    enum Step {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
        /// Cancelled: only release the subscriber.
        case release
    }

    let core: ReplayCore<Output, Failure>

    /// core: the phase.
    nonisolated(unsafe) var phase = Phase.subscribing
    /// core: demand not yet matched by a delivered or owed value.
    nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// core: values already counted against demand, waiting for the owner to deliver them.
    nonisolated(unsafe) var owed = RingBuffer<Output>()
    /// core: values that arrived without demand (at most the core's capacity, newest kept).
    nonisolated(unsafe) var pending = RingBuffer<Output>()
    /// core: the completion, delivered once `owed` and `pending` are empty.
    nonisolated(unsafe) var completion: Subscribers.Completion<Failure>?
    /// core: whether a thread owns delivery to this conduit (true from creation: the subscribing
    /// thread owns it until `receive(subscription:)` returns).
    nonisolated(unsafe) var isDelivering = true
    /// owner: the demand the subscriber returned from the last value, not yet added.
    nonisolated(unsafe) var returnedDemand = Subscribers.Demand.none
    /// owner: chosen under the lock, performed after it.
    nonisolated(unsafe) var step: Step?

    init(core: ReplayCore<Output, Failure>) {
        self.core = core
    }

    /// Whether the owner would deliver something now. Lock held.
    var hasSomethingToDeliver: Bool {
        !owed.isEmpty || (pending.isEmpty && completion != nil)
    }

    /// Turns pending values into owed ones while there is demand, oldest first. Lock held.
    func movePendingToOwed() {
        while demand > 0, let value = pending.popFirst() {
            demand -= 1
            owed.append(value)
        }
    }

    /// Performs ``step``; returns whether the owner keeps the conduit (a value was delivered).
    func performStep() -> Bool {
        let current = step
        step = nil
        switch current {
        case .value(let value):
            returnedDemand = deliver(value)
            return true
        case .completion(let completion):
            deliver(completion: completion)
            releaseDownstream()
            return false
        case .release, nil:
            releaseDownstream()
            return false
        }
    }

    /// Delivers `value` to the subscriber; returns its extra demand. Owner only.
    func deliver(_ value: Output) -> Subscribers.Demand { .none }

    /// Delivers `completion` to the subscriber. Owner only.
    func deliver(completion: Subscribers.Completion<Failure>) {}

    /// Drops the subscriber. Owner only, once nothing more is delivered.
    func releaseDownstream() {}

    var description: String { core.name }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        core.request(demand, for: self)
    }

    func cancel() {
        core.cancel(self)
    }
}

/// The ``ReplayConduit`` for a subscriber of type `Downstream`.
private final class ReplaySubscription<Downstream: Subscriber>: ReplayConduit<Downstream.Input, Downstream.Failure> {
    /// owner: the subscriber.
    private nonisolated(unsafe) var downstream: Downstream?

    init(core: ReplayCore<Downstream.Input, Downstream.Failure>, downstream: Downstream) {
        self.downstream = downstream
        super.init(core: core)
    }

    override func deliver(_ value: Downstream.Input) -> Subscribers.Demand {
        downstream?.receive(value) ?? .none
    }

    override func deliver(completion: Subscribers.Completion<Downstream.Failure>) {
        downstream?.receive(completion: completion)
    }

    override func releaseDownstream() {
        downstream = nil
    }
}

/// The subscriber ``ReplaySubject/connect(to:)`` attaches to an upstream: it forwards everything into
/// the subject, and is the upstream subscription the subject requests through. When cancelled or
/// completed it makes the subject forget it.
private final class ReplayUpstreamSubscriber<Output, Failure: Error>: Subscriber, Subscription,
    CustomStringConvertible
{
    private let lock = Lock()
    private nonisolated(unsafe) var core: ReplayCore<Output, Failure>?
    private nonisolated(unsafe) var upstream: (any Subscription)?
    let description: String

    init(core: ReplayCore<Output, Failure>) {
        self.core = core
        description = core.name
    }

    func receive(subscription: any Subscription) {
        let target: ReplayCore<Output, Failure>? = lock.withLock {
            guard upstream == nil, let core else { return nil }
            upstream = subscription
            return core
        }
        guard let target else {
            subscription.cancel()
            return
        }
        target.send(subscription: self)
    }

    func receive(_ input: Output) -> Subscribers.Demand {
        let target = lock.withLock { upstream == nil ? nil : core }
        target?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let target: ReplayCore<Output, Failure>? = lock.withLock {
            guard upstream != nil else { return nil }
            let target = core
            core = nil
            upstream = nil
            return target
        }
        target?.detach(self)
        target?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let target = lock.withLock { upstream }
        target?.request(demand)
    }

    func cancel() {
        let (subscription, target) = lock.withLock { () -> ((any Subscription)?, ReplayCore<Output, Failure>?) in
            let subscription = upstream
            let target = core
            upstream = nil
            core = nil
            return (subscription, target)
        }
        subscription?.cancel()
        target?.detach(self)
    }
}
