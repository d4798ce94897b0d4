import Synchronization

/// Why a ``TransformingStep`` produced no value for an upstream value. A concrete error type, so that
/// throwing it costs nothing per value (typed throws, no boxing), also in unspecialised generic code.
@usableFromInline
internal enum TransformingStepInterruption: Error {
    /// Drop the value and ask the upstream for one more in its place (`.max(1)`).
    case skip
    /// End the stream: the step keeps the error; cancel the upstream, then fail downstream with it.
    case fail
}

/// The per-value logic of an operator that has its own subscription but passes demand straight through
/// (`tryMap`, `tryFilter`, `tryCompactMap`, `removeDuplicates`, `tryRemoveDuplicates`, `tryScan`).
///
/// ``step(_:)`` is called only from the upstream's serialised `receive(_:)`, so a conforming type may keep
/// mutable state (the previous value, the running result) without a lock. It returns the value to deliver
/// rather than delivering it, so that a downstream re-entering the operator never overlaps an access to
/// that state.
@usableFromInline
internal protocol TransformingStep: TransformingLogic {
    /// The upstream's values.
    associatedtype Input
    /// The values delivered downstream.
    associatedtype Output
    /// Combine's name for the subscription, such as `"TryMap"`.
    static var name: String { get }

    /// Handles one upstream value: returns the value to deliver, or throws `.skip` or `.fail`.
    mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output
}

/// The subscriber/subscription pair behind the ``TransformingStep`` operators.
///
/// It hands itself downstream as the subscription, forwards every `request` and `cancel` upstream unchanged,
/// answers a skipped value with `.max(1)`, and on a thrown error cancels the upstream and fails. After
/// cancellation or completion nothing more reaches the downstream. Per value it reads one atomic flag and
/// takes no lock.
@usableFromInline
internal final class TransformingStepSubscription<Downstream: Subscriber, Step: TransformingStep>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Step.Output, Downstream.Failure == Step.Failure {
    @usableFromInline typealias Input = Step.Input
    @usableFromInline typealias Failure = Step.UpstreamFailure

    @inlinable static var awaitingSubscription: UInt8 { 0 }
    @inlinable static var active: UInt8 { 1 }
    @inlinable static var terminal: UInt8 { 2 }

    @usableFromInline let downstream: Downstream
    /// Touched only from the upstream's serialised `receive(_:)`/`receive(completion:)` (the contract
    /// serialises them), so the per-value dynamic exclusivity check is skipped.
    @exclusivity(unchecked) @usableFromInline var logic: Step
    @usableFromInline let lock = Lock()
    /// The upstream subscription while active; guarded by `lock`.
    @usableFromInline nonisolated(unsafe) var upstream: (any Subscription)?
    /// `awaitingSubscription`, `active` or `terminal`; written only under `lock`, read without it on the
    /// value path.
    @usableFromInline let phase = Atomic<UInt8>(0)

    @inlinable init(downstream: Downstream, step: Step) {
        self.downstream = downstream
        logic = step
    }

    @usableFromInline var description: String { Step.name }

    @usableFromInline var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }

    @usableFromInline var playgroundDescription: Any { description }

    @inlinable func receive(subscription: any Subscription) {
        let accepted = lock.withLock { () -> Bool in
            guard phase.load(ordering: .relaxed) == Self.awaitingSubscription else { return false }
            upstream = subscription
            phase.store(Self.active, ordering: .releasing)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    @inlinable func receive(_ input: Input) -> Subscribers.Demand {
        guard phase.load(ordering: .acquiring) == Self.active else { return .none }
        let output: Step.Output
        do {
            output = try logic.step(input)
        } catch .skip {
            return .max(1)
        } catch {
            failFromStep()
            return .none
        }
        return downstream.receive(output)
    }

    /// Cancels the upstream and fails with the step's error. Kept out of `receive(_:)` so that the value
    /// path of unspecialised code does not look up the metadata this path needs.
    @inline(never) @usableFromInline func failFromStep() {
        guard let failure = logic.takeFailure(), let subscription = terminate() else { return }
        subscription.cancel()
        downstream.receive(completion: .failure(failure))
    }

    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        guard terminate() != nil else { return }
        downstream.receive(completion: completion.mapFailure(logic.failure(from:)))
    }

    @inlinable func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let subscription = lock.withLock { upstream }
        subscription?.request(demand)
    }

    @inlinable func cancel() {
        let subscription = lock.withLock { () -> (any Subscription)? in
            let subscription = upstream
            upstream = nil
            phase.store(Self.terminal, ordering: .releasing)
            return subscription
        }
        subscription?.cancel()
    }

    /// Moves from active to terminal; returns the upstream subscription if this call made the move.
    @inlinable func terminate() -> (any Subscription)? {
        lock.withLock {
            guard phase.load(ordering: .relaxed) == Self.active else { return nil }
            let subscription = upstream
            upstream = nil
            phase.store(Self.terminal, ordering: .releasing)
            return subscription
        }
    }
}
