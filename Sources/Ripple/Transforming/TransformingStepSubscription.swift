import Synchronization

/// What one upstream value becomes in an operator run by ``TransformingStepSubscription``.
internal enum TransformingStepResult<Output, Failure: Error> {
    /// Deliver this value downstream; the downstream's answer is the new demand.
    case emit(Output)
    /// Drop the value and ask the upstream for one more in its place (`.max(1)`).
    case skip
    /// End the stream: cancel the upstream, then fail downstream with this error.
    case fail(Failure)
}

/// The per-value logic of an operator that has its own subscription but passes demand straight through
/// (`tryMap`, `tryFilter`, `tryCompactMap`, `removeDuplicates`, `tryRemoveDuplicates`, `tryScan`).
///
/// ``step(_:)`` is called only from the upstream's serialised `receive(_:)`, so a conforming type may keep
/// mutable state (the previous value, the running result) without a lock.
internal protocol TransformingStep {
    /// The upstream's values.
    associatedtype Input
    /// The values delivered downstream.
    associatedtype Output
    /// The upstream's failure.
    associatedtype UpstreamFailure: Error
    /// The downstream's failure (`any Error` for the `try` operators).
    associatedtype Failure: Error

    /// Combine's name for the subscription, such as `"TryMap"`.
    static var name: String { get }

    /// Handles one upstream value.
    mutating func step(_ input: Input) -> TransformingStepResult<Output, Failure>

    /// The downstream failure for an upstream failure.
    func failure(from error: UpstreamFailure) -> Failure
}

/// The subscriber/subscription pair behind the ``TransformingStep`` operators.
///
/// It hands itself downstream as the subscription, forwards every `request` and `cancel` upstream unchanged,
/// answers a skipped value with `.max(1)`, and on a thrown error cancels the upstream and fails. After
/// cancellation or completion nothing more reaches the downstream. Per value it reads one atomic flag and
/// takes no lock.
internal final class TransformingStepSubscription<Downstream: Subscriber, Step: TransformingStep>: Subscriber,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Step.Output, Downstream.Failure == Step.Failure {
    typealias Input = Step.Input
    typealias Failure = Step.UpstreamFailure

    private static var awaitingSubscription: UInt8 { 0 }
    private static var active: UInt8 { 1 }
    private static var terminal: UInt8 { 2 }

    private let downstream: Downstream
    /// Touched only from the upstream's serialised `receive(_:)`.
    private var logic: Step
    private let lock = Lock()
    /// The upstream subscription while active; guarded by `lock`.
    private nonisolated(unsafe) var upstream: (any Subscription)?
    /// `awaitingSubscription`, `active` or `terminal`; written only under `lock`, read without it on the
    /// value path.
    private let phase = Atomic<UInt8>(0)

    init(downstream: Downstream, step: Step) {
        self.downstream = downstream
        logic = step
    }

    var description: String { Step.name }

    var customMirror: Mirror { Mirror(self, children: ["downstream": downstream]) }

    var playgroundDescription: Any { description }

    func receive(subscription: any Subscription) {
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

    func receive(_ input: Input) -> Subscribers.Demand {
        guard phase.load(ordering: .acquiring) == Self.active else { return .none }
        switch logic.step(input) {
        case .emit(let output):
            return downstream.receive(output)
        case .skip:
            return .max(1)
        case .fail(let error):
            guard let subscription = terminate() else { return .none }
            subscription.cancel()
            downstream.receive(completion: .failure(error))
            return .none
        }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard terminate() != nil else { return }
        downstream.receive(completion: completion.mapFailure(logic.failure(from:)))
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let subscription = lock.withLock { upstream }
        subscription?.request(demand)
    }

    func cancel() {
        let subscription = lock.withLock { () -> (any Subscription)? in
            let subscription = upstream
            upstream = nil
            phase.store(Self.terminal, ordering: .releasing)
            return subscription
        }
        subscription?.cancel()
    }

    /// Moves from active to terminal; returns the upstream subscription if this call made the move.
    private func terminate() -> (any Subscription)? {
        lock.withLock {
            guard phase.load(ordering: .relaxed) == Self.active else { return nil }
            let subscription = upstream
            upstream = nil
            phase.store(Self.terminal, ordering: .releasing)
            return subscription
        }
    }
}
