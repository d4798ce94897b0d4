import Synchronization

/// What a reducing operator decides after folding in one upstream value. Not generic, so that returning it
/// costs nothing per value, also in unspecialised generic code.
@usableFromInline
internal enum TransformingReductionStep {
    /// Keep going: the result depends on later values.
    case `continue`
    /// The result is known (`first()`, `contains`, `allSatisfy`...): cancel the upstream and publish it.
    case finish
    /// End the stream: the reduction keeps the error; cancel the upstream, then fail downstream with it.
    case fail
}

/// The folding logic of an operator that publishes at most one value when its upstream ends (`reduce`,
/// `collect()`, `count`, `first`, `last`, `contains`, `allSatisfy`, `min`/`max` and their `try` forms).
///
/// ``reduce(_:)`` and ``takeResult()`` are called only from the upstream's serialised signals, so a
/// conforming type keeps its accumulator without a lock.
@usableFromInline
internal protocol TransformingReduction: TransformingLogic {
    /// The upstream's values.
    associatedtype Input
    /// The single value published.
    associatedtype Output
    /// Combine's name for the subscription, such as `"Reduce"`.
    static var name: String { get }

    /// Folds in one upstream value.
    mutating func reduce(_ input: Input) -> TransformingReductionStep

    /// The value to publish, or `nil` for none; called once, when the reduction ends.
    mutating func takeResult() -> Output?

    /// The children of the subscription's mirror, given the reduction before any value (`initial`), the
    /// downstream and the upstream's status; by default Combine's `downstream`, `result`, `initial`,
    /// `status`.
    func reflectedChildren(initial: Self, downstream: Any, status: SubscriptionLifecycle) -> [Mirror.Child]
}

extension TransformingReduction {
    @usableFromInline
    func reflectedChildren(initial: Self, downstream: Any, status: SubscriptionLifecycle) -> [Mirror.Child] {
        var current = self
        var initial = initial
        return [
            ("downstream", downstream),
            ("result", current.takeResult() as Any),
            ("initial", initial.takeResult() as Any),
            ("status", status),
        ]
    }
}

/// The subscriber/subscription pair behind the ``TransformingReduction`` operators, with Combine's demand
/// behaviour: it hands itself downstream, then requests `.unlimited` from the upstream; downstream requests
/// are not forwarded, they only allow the single result to be delivered. The result (then `.finished`) goes
/// out as soon as the reduction has ended and the downstream has requested anything; an early decision or
/// a thrown error cancels the upstream first. Nothing reaches the downstream after it cancels.
@usableFromInline
internal final class TransformingReduceSubscription<Downstream: Subscriber, Reduction: TransformingReduction>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Reduction.Output, Downstream.Failure == Reduction.Failure {
    @usableFromInline typealias Input = Reduction.Input
    @usableFromInline typealias Failure = Reduction.UpstreamFailure

    @usableFromInline let downstream: Downstream
    /// Touched only from the upstream's serialised signals (the contract serialises them), so the per-value
    /// dynamic exclusivity check is skipped.
    @exclusivity(unchecked) @usableFromInline var reduction: Reduction
    @usableFromInline let lock = Lock()
    /// `pendingTerminal(nil)` once the reduction has ended before the downstream's first request: the result
    /// (`pendingResult`) waits for it.
    @usableFromInline nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
    /// While `pendingTerminal`: the result to publish on the downstream's first request (`nil` for none).
    @usableFromInline nonisolated(unsafe) var pendingResult: Reduction.Output?
    @usableFromInline nonisolated(unsafe) var hasDemand = false
    /// Set by `cancel()`, so that a cancel from inside the result's delivery suppresses `.finished`.
    @usableFromInline nonisolated(unsafe) var isCancelled = false
    /// Whether `state` is `.subscribed`; written only under `lock`, read without it on the value path.
    @usableFromInline let isActive = Atomic<Bool>(false)

    /// The reduction as it was before the first value, for the mirror's `initial` child.
    @usableFromInline let initialReduction: Reduction

    @inlinable init(downstream: Downstream, reduction: Reduction) {
        self.downstream = downstream
        self.reduction = reduction
        self.initialReduction = reduction
    }

    @usableFromInline var description: String { Reduction.name }

    /// Combine's children (see ``TransformingReduction/reflectedChildren(initial:downstream:status:)``).
    /// Like a debugger, read it while no value arrives: the result so far is not locked.
    @usableFromInline var customMirror: Mirror {
        let status = lock.withLock { () -> SubscriptionLifecycle in
            // Combine's mirror shows a result waiting for demand as terminal.
            if case .pendingTerminal = state { return .terminal }
            return state
        }
        return Mirror(
            self,
            children: reduction.reflectedChildren(initial: initialReduction, downstream: downstream, status: status))
    }

    @usableFromInline var playgroundDescription: Any { description }

    @inlinable func receive(subscription: any Subscription) {
        let accepted = lock.withLock { () -> Bool in
            guard state.accept(subscription) else { return false }
            isActive.store(true, ordering: .releasing)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        if isActive.load(ordering: .acquiring) {
            subscription.request(.unlimited)
        }
    }

    @inlinable func receive(_ input: Input) -> Subscribers.Demand {
        guard isActive.load(ordering: .acquiring) else { return .none }
        switch reduction.reduce(input) {
        case .continue:
            break
        case .finish:
            finishEarly()
        case .fail:
            failFromReduction()
        }
        return .none
    }

    /// The reduction decided before the upstream ended: cancels the upstream, then publishes if the
    /// downstream has demand. Kept out of `receive(_:)` so that the value path of unspecialised code does not
    /// look up the metadata this path needs.
    @inline(never) @usableFromInline func finishEarly() {
        let result = reduction.takeResult()
        let (subscription, deliver) = end(with: result)
        subscription?.cancel()
        if deliver { publish(result) }
    }

    /// Cancels the upstream and fails with the reduction's error (kept out of `receive(_:)`, as
    /// ``finishEarly()``).
    @inline(never) @usableFromInline func failFromReduction() {
        guard let error = reduction.takeFailure() else { return }
        let subscription = lock.withLock { () -> (any Subscription)? in
            guard let subscription = state.subscription else { return nil }
            state = .terminal
            isActive.store(false, ordering: .releasing)
            return subscription
        }
        guard let subscription else { return }
        subscription.cancel()
        downstream.receive(completion: .failure(error))
    }

    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        guard isActive.load(ordering: .acquiring) else { return }
        switch completion {
        case .finished:
            let result = reduction.takeResult()
            if end(with: result).deliver { publish(result) }
        case .failure(let error):
            let ended = lock.withLock { () -> Bool in
                guard state.isSubscribed else { return false }
                state = .terminal
                isActive.store(false, ordering: .releasing)
                return true
            }
            if ended { downstream.receive(completion: .failure(reduction.failure(from: error))) }
        }
    }

    @inlinable func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let pending = lock.withLock { () -> Reduction.Output?? in
            switch state {
            case .pendingTerminal:
                state = .terminal
                let result = pendingResult
                pendingResult = nil
                return .some(result)
            case .awaitingSubscription, .subscribed:
                hasDemand = true
                return nil
            case .terminal:
                return nil
            }
        }
        if let pending { publish(pending) }
    }

    /// A cancel before the upstream's subscription is forgotten, as in Combine: the late subscription is then
    /// taken and asked for `.unlimited` like any other. No downstream reaches that case, because this
    /// subscription is handed downstream only once the upstream's has arrived.
    @inlinable func cancel() {
        let subscription = lock.withLock { () -> (any Subscription)? in
            if state.isAwaitingSubscription { return nil }
            isCancelled = true
            isActive.store(false, ordering: .releasing)
            pendingResult = nil
            return state.cancel()
        }
        subscription?.cancel()
    }

    /// Ends an active reduction with `result`: returns the upstream subscription (nil if the reduction was
    /// no longer active) and whether the result is to be published now (the downstream has demand) rather
    /// than kept for its first request.
    @inlinable func end(with result: Reduction.Output?) -> (upstream: (any Subscription)?, deliver: Bool) {
        lock.withLock {
            guard let subscription = state.subscription else { return (nil, false) }
            isActive.store(false, ordering: .releasing)
            if hasDemand {
                state = .terminal
                return (subscription, true)
            }
            state = .pendingTerminal(nil)
            pendingResult = result
            return (subscription, false)
        }
    }

    /// Delivers the result (if any) and `.finished`, unless the downstream cancels on receiving the result.
    @inlinable func publish(_ result: Reduction.Output?) {
        if let result {
            _ = downstream.receive(result)
            if lock.withLock({ isCancelled }) { return }
        }
        downstream.receive(completion: .finished)
    }
}
