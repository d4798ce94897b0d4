/// The delivery engine shared by ``PassthroughSubject`` and ``CurrentValueSubject``.
///
/// ## Serialised delivery
/// `send` may be called from any thread, at once and re-entrantly (a subscriber that sends into the
/// subject it is receiving from). Deliveries never overlap and never reorder: the first thread to
/// send while no delivery runs becomes the *drain owner* and delivers; a `send` that arrives while a
/// delivery runs — on another thread or re-entrantly on the owner's — appends to a queue that the owner
/// delivers, in order, before it returns. A `send` therefore never blocks on a subscriber and never
/// deadlocks; when sends race from several threads, a sender may return before its value has reached
/// the subscribers (it is queued behind the delivery in progress, never dropped or reordered).
///
/// ## Demand
/// Each subscriber receives a value only if it has demand when the value is delivered; otherwise the
/// value is not delivered to it (as in Combine). A replaying subject also hands its latest value to a
/// subscriber as soon as that subscriber has demand and has not seen the latest value yet, also from
/// inside its `receive(subscription:)` (as in Combine). A completion reaches a subscriber only after its
/// `receive(subscription:)` has returned.
///
/// ## Upstream subscriptions
/// The subscriptions given to ``send(subscription:)`` are asked for `.unlimited` at once
/// (``CurrentValueSubject``) or once any subscriber has asked for something (``PassthroughSubject``), as in
/// Combine, and cancelled when the subject goes away. A live subscription keeps its subject alive until it
/// ends, as in Combine.
///
/// ## Cost
/// Delivering one value to N subscribers takes the lock twice (choose, then account the returned
/// demand) and allocates nothing.
@usableFromInline
internal final class SubjectCore<Output, Failure: Error, Replay: SubjectReplay<Output>>:
    SubjectConduitOwner<Output, Failure>, @unchecked Sendable
{

    @usableFromInline enum Pending {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
        case latest(Conduit)
    }

    /// Guards every field below except where noted. Because the lock (or drain ownership) already makes
    /// every access exclusive, the mutable fields skip the per-access dynamic exclusivity check.
    @usableFromInline let lock = Lock()
    /// The replayed value (for ``CurrentValueSubject`` the subject's `value`).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var replay: Replay
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var conduits = ContiguousArray<Conduit>()
    /// Set when `send(completion:)` is accepted; later sends are ignored.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var terminal: Subscribers.Completion<Failure>?
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isDraining = false
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var pending = RingBuffer<Pending>()
    /// Conduits cancelled while a drain ran: the drain owner releases their subscribers.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var releasedDuringDrain: [Conduit] = []
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var upstreams: [any Subscription] = []
    /// Whether upstream subscriptions are asked for values: from the start when the subject requests at
    /// once, else from the first downstream request.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var requestsUpstream: Bool

    /// Creates the engine of a subject that its subscriptions describe as `name`, replaying with `replay`;
    /// `requestsUpstreamAtOnce` asks upstream subscriptions for values as soon as they arrive.
    @inlinable init(name: String, replay: Replay, requestsUpstreamAtOnce: Bool = false) {
        self.replay = replay
        requestsUpstream = requestsUpstreamAtOnce
        // Closures without captures, made here so that they are specialised with this initialiser (see
        // ``SubjectConduitOwner``): no allocation, and the conduits' calls run specialised code.
        super.init(
            name: name,
            request: { unsafeDowncast($0, to: SubjectCore.self).request($1, for: $2) },
            cancel: { unsafeDowncast($0, to: SubjectCore.self).cancel($1) },
            reflect: { unsafeDowncast($0, to: SubjectCore.self).reflect($1) }
        )
    }

    // MARK: Subject

    /// Attaches `subscriber` to `parent`, the subject this engine serves.
    @inlinable func subscribe<S: Subscriber>(_ subscriber: S, parent: AnyObject)
    where S.Input == Output, S.Failure == Failure {
        let conduit = Conduit(core: self, parent: parent, downstream: subscriber)
        let completion: Subscribers.Completion<Failure>? = lock.withLock {
            if let terminal { return terminal }
            conduits.append(conduit)
            return nil
        }
        if let completion {
            release(conduit)
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        subscriber.receive(subscription: conduit)
        let (completionDuringSubscribe, startDrain) = lock.withLock { () -> (Subscribers.Completion<Failure>?, Bool) in
            if conduit.hasPendingCompletion, let terminal {
                conduit.hasPendingCompletion = false
                conduit.phase = .finished
                return (terminal, false)
            }
            guard conduit.phase == .subscribing else { return (nil, false) }
            conduit.phase = .subscribed
            return (nil, enqueueLatestIfNeeded(for: conduit))
        }
        if let completionDuringSubscribe {
            subscriber.receive(completion: completionDuringSubscribe)
            release(conduit)
        }
        if startDrain { drain(after: []) }
    }

    /// Delivers `value`; after the completion it is ignored, or only recorded if `keepingAfterCompletion`
    /// (``CurrentValueSubject/value``'s setter, as in Combine).
    @inlinable func send(_ value: Output, keepingAfterCompletion: Bool = false) {
        let selected: ContiguousArray<Conduit>? = lock.withLock {
            guard terminal == nil else {
                if keepingAfterCompletion { replay.record(value) }
                return nil
            }
            replay.record(value)
            if isDraining {
                pending.append(.value(value))
                return nil
            }
            isDraining = true
            return select(conduits)
        }
        guard let selected else { return }
        deliver(value, to: selected)
        // The common case, nothing queued meanwhile: account the returned demand and give up the drain
        // in one critical section.
        let isDone = lock.withLock { () -> Bool in
            addReturnedDemand(of: selected)
            guard pending.isEmpty, releasedDuringDrain.isEmpty else { return false }
            isDraining = false
            return true
        }
        if !isDone { drain(after: []) }
    }

    @inlinable func send(completion: Subscribers.Completion<Failure>) {
        let startDrain = lock.withLock { () -> Bool in
            guard terminal == nil else { return false }
            terminal = completion
            pending.append(.completion(completion))
            return claimDrain()
        }
        if startDrain { drain(after: []) }
    }

    @inlinable func send(subscription: any Subscription) {
        let requestNow = lock.withLock { () -> Bool in
            upstreams.append(subscription)
            return requestsUpstream
        }
        if requestNow { subscription.request(.unlimited) }
    }

    /// Cancels every upstream subscription the subject was given (when the subject goes away).
    @inlinable func cancelUpstreams() {
        let subscriptions: [any Subscription] = lock.withLock {
            let subscriptions = upstreams
            upstreams = []
            return subscriptions
        }
        for subscription in subscriptions { subscription.cancel() }
    }

    // MARK: Conduit operations (through SubjectConduitOwner's stored functions)

    @inlinable func request(_ demand: Subscribers.Demand, for conduit: Conduit) {
        let (upstreamsToRequest, startDrain) = lock.withLock { () -> ([any Subscription], Bool) in
            guard conduit.phase != .finished else { return ([], false) }
            conduit.demand += demand
            var toRequest: [any Subscription] = []
            if !requestsUpstream {
                requestsUpstream = true
                toRequest = upstreams
            }
            // Also while the subscriber is still in `receive(subscription:)`, as in Combine.
            let startDrain = enqueueLatestIfNeeded(for: conduit)
            return (toRequest, startDrain)
        }
        for upstream in upstreamsToRequest { upstream.request(.unlimited) }
        if startDrain { drain(after: []) }
    }

    @inlinable func cancel(_ conduit: Conduit) {
        // The references to the subscriber and the subject are taken in the same critical section (when no
        // drain runs) and dropped after it.
        let references = lock.withLock { () -> (Conduit.Receiver?, AnyObject?) in
            guard conduit.phase != .finished else { return (nil, nil) }
            conduit.phase = .finished
            conduit.hasPendingCompletion = false
            // A loop rather than `firstIndex(where:)`: this runs unspecialised where the subject was made in
            // generic code, and there the generic algorithm allocates a coroutine frame per element.
            var index = conduits.startIndex
            while index < conduits.endIndex {
                if conduits[index] === conduit {
                    conduits.remove(at: index)
                    break
                }
                index += 1
            }
            if isDraining {
                releasedDuringDrain.append(conduit)
                return (nil, nil)
            }
            return conduit.takeReferences()
        }
        withExtendedLifetime(references) {}
    }

    @inlinable func reflect(
        _ conduit: Conduit
    ) -> (parent: AnyObject?, receiver: Conduit.Receiver?, demand: Subscribers.Demand) {
        lock.withLock { (conduit.parent, conduit.receiver, conduit.demand) }
    }

    /// Drops `conduit`'s references to its subscriber and its subject, after the lock (releasing either may
    /// run code that uses the subject).
    @inlinable func release(_ conduit: Conduit) {
        let references = lock.withLock { conduit.takeReferences() }
        withExtendedLifetime(references) {}
    }

    // MARK: Delivery (drain owner only)

    /// Takes the drain if no one holds it; returns whether the caller now owns it. Lock held.
    @inlinable func claimDrain() -> Bool {
        if isDraining { return false }
        isDraining = true
        return true
    }

    /// Queues the latest value for `conduit` if it has demand and has not seen it; returns whether the
    /// caller must drain. Lock held.
    @inlinable func enqueueLatestIfNeeded(for conduit: Conduit) -> Bool {
        guard replay.latest != nil, !conduit.hasLatest, conduit.demand > 0 else { return false }
        pending.append(.latest(conduit))
        return claimDrain()
    }

    /// Marks the conduits that receive the next value and takes their demand. Lock held.
    @inlinable func select(_ candidates: ContiguousArray<Conduit>) -> ContiguousArray<Conduit> {
        for conduit in candidates {
            // A subscriber still in `receive(subscription:)` receives values once it has asked (as in Combine).
            if conduit.phase != .finished && conduit.demand > 0 {
                conduit.demand -= 1
                conduit.isSelected = true
                conduit.hasLatest = true
            } else {
                conduit.hasLatest = false
            }
        }
        return candidates
    }

    /// Adds the demand the `delivered` conduits returned to their demand. Lock held.
    @inlinable func addReturnedDemand(of delivered: ContiguousArray<Conduit>) {
        for conduit in delivered where conduit.returnedDemand != .none {
            if conduit.phase != .finished { conduit.demand += conduit.returnedDemand }
            conduit.returnedDemand = .none
        }
    }

    @inlinable func deliver(_ value: Output, to selected: ContiguousArray<Conduit>) {
        for conduit in selected where conduit.isSelected {
            conduit.isSelected = false
            conduit.returnedDemand = conduit.deliver(value)
        }
    }

    /// Delivers what was queued, in order, until the queue is empty; then gives up the drain.
    /// `delivered` are the conduits of the delivery just made, whose returned demand is still to add.
    @inlinable func drain(after delivered: ContiguousArray<Conduit>) {
        var delivered = delivered
        while true {
            let step: DrainStep = lock.withLock {
                addReturnedDemand(of: delivered)
                guard let next = pending.popFirst() else {
                    isDraining = false
                    let released = releasedDuringDrain
                    releasedDuringDrain = []
                    return .done(released)
                }
                switch next {
                case .value(let value):
                    return .value(value, select(conduits))
                case .latest(let conduit):
                    guard conduit.phase != .finished, !conduit.hasLatest, conduit.demand > 0,
                        let latest = replay.latest
                    else { return .value(nil, []) }
                    conduit.demand -= 1
                    conduit.hasLatest = true
                    conduit.isSelected = true
                    return .value(latest, [conduit])
                case .completion(let completion):
                    var finishing = ContiguousArray<Conduit>()
                    for conduit in conduits {
                        if conduit.phase == .subscribing {
                            conduit.hasPendingCompletion = true
                        } else {
                            conduit.phase = .finished
                            finishing.append(conduit)
                        }
                    }
                    conduits = []
                    return .completion(completion, finishing)
                }
            }
            switch step {
            case .done(let released):
                for conduit in released { release(conduit) }
                return
            case .value(let value, let selected):
                if let value { deliver(value, to: selected) }
                delivered = selected
            case .completion(let completion, let finishing):
                for conduit in finishing {
                    conduit.deliver(completion: completion)
                    release(conduit)
                }
                delivered = []
            }
        }
    }

    @usableFromInline enum DrainStep {
        case done([Conduit])
        case value(Output?, ContiguousArray<Conduit>)
        case completion(Subscribers.Completion<Failure>, ContiguousArray<Conduit>)
    }
}
