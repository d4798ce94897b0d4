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

/// Which of Combine's subscription shapes a ``TransformingStep`` operator has. The shapes differ only where
/// the upstream or the downstream breaks the contract (signals before the subscription, after the end, or
/// a zero demand), and there each follows Combine.
@usableFromInline
internal enum TransformingStepShape {
    /// `tryMap`: values and thrown errors reach the downstream whatever the state (Combine checks nothing
    /// on that path); a completion only while subscribed; requests and cancellation before the
    /// subscription are ignored.
    case map
    /// `tryScan`: as ``map``, except that a thrown error ends the stream only while subscribed and an
    /// upstream completion does not end it.
    case scan
    /// `tryFilter`, `tryCompactMap`, `removeDuplicates`, `tryRemoveDuplicates`: a value, a completion or a
    /// request before the subscription traps (programmer misuse, as in Combine), a zero demand traps, and
    /// nothing passes after the end; cancelling before the subscription cancels it when it arrives.
    case filter
    /// `encode` and `decode`: values and a completion pass before the subscription as well, nothing passes
    /// after the end; a cancel before the subscription is ignored.
    case coder
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
    /// Combine's subscription shape for the operator.
    static var shape: TransformingStepShape { get }
    /// The running result that Combine's mirror shows (`tryScan`), or the previous value
    /// (`removeDuplicates`, see ``reflectsLast``); `nil` for none.
    var reflectedResult: Any? { get }
    /// Whether Combine's mirror of this filter-shaped operator has a `last` child (``reflectedResult``).
    static var reflectsLast: Bool { get }

    /// Handles one upstream value: returns the value to deliver, or throws `.skip` or `.fail`.
    mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output
}

extension TransformingStep {
    /// The filter shape, which most of these operators have.
    @inlinable
    static var shape: TransformingStepShape { .filter }

    /// No running result.
    @inlinable
    var reflectedResult: Any? { nil }

    /// No `last` child.
    @inlinable
    static var reflectsLast: Bool { false }
}

/// The subscriber/subscription pair behind the ``TransformingStep`` operators.
///
/// It hands itself downstream as the subscription, forwards every `request` and `cancel` upstream unchanged,
/// answers a skipped value with `.max(1)`, and on a thrown error cancels the upstream and fails. What it does
/// with signals that break the contract depends on the step's ``TransformingStepShape``. Per value it takes
/// no lock and reads at most one atomic flag.
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
    /// Not a ``SubscriptionLifecycle``: the lock-free value path needs an atomic byte, which an enum is not.
    @usableFromInline let phase = Atomic<UInt8>(0)

    @inlinable init(downstream: Downstream, step: Step) {
        self.downstream = downstream
        logic = step
    }

    @usableFromInline var description: String { Step.name }

    @usableFromInline var customMirror: Mirror {
        switch Step.shape {
        case .map:
            return Mirror(self, children: [:])
        case .scan:
            let status = lock.withLock {
                SubscriptionLifecycle(awaiting: phase.load(ordering: .relaxed) == Self.awaitingSubscription, upstream)
            }
            let children: [Mirror.Child] = [
                ("downstream", downstream), ("status", status),
                ("result", logic.reflectedResult ?? (nil as Any?) as Any),
            ]
            return Mirror(self, children: children)
        case .filter:
            if Step.reflectsLast {
                let children: [Mirror.Child] = [("downstream", downstream), ("last", logic.reflectedResult as Any)]
                return Mirror(self, children: children)
            }
            return Mirror(self, children: ["downstream": downstream])
        case .coder:
            let state = lock.withLock { () -> (finished: Bool, upstream: (any Subscription)?) in
                (phase.load(ordering: .relaxed) == Self.terminal, self.upstream)
            }
            let children: [Mirror.Child] = [
                ("downstream", downstream), ("finished", state.finished),
                ("upstreamSubscription", state.upstream as Any),
            ]
            return Mirror(self, children: children)
        }
    }

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
        switch Step.shape {
        case .map, .scan:
            break
        case .filter:
            let current = phase.load(ordering: .acquiring)
            guard current == Self.active else {
                if current == Self.awaitingSubscription { APIViolation.valueBeforeSubscription() }
                return .none
            }
        case .coder:
            guard phase.load(ordering: .acquiring) != Self.terminal else { return .none }
        }
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
        guard let failure = logic.takeFailure() else { return }
        let subscription = lock.withLock { () -> (any Subscription)?? in
            let current = phase.load(ordering: .relaxed)
            // `tryMap` fails whatever the state (as Combine), the coders unless ended, the others only while
            // subscribed.
            switch Step.shape {
            case .map: break
            case .coder: guard current != Self.terminal else { return nil }
            case .scan, .filter: guard current == Self.active else { return nil }
            }
            let subscription = upstream
            upstream = nil
            phase.store(Self.terminal, ordering: .releasing)
            return .some(subscription)
        }
        guard let subscription else { return }
        subscription?.cancel()
        downstream.receive(completion: .failure(failure))
    }

    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        // `nil`: a completion before the subscription, which the filter shape treats as misuse.
        let forward = lock.withLock { () -> Bool? in
            switch phase.load(ordering: .relaxed) {
            case Self.active:
                // `tryScan` keeps forwarding completions (as Combine); the others end here.
                if Step.shape != .scan {
                    upstream = nil
                    phase.store(Self.terminal, ordering: .releasing)
                }
                return true
            case Self.awaitingSubscription:
                switch Step.shape {
                case .filter: return nil
                case .map, .scan: return false
                case .coder:
                    phase.store(Self.terminal, ordering: .releasing)
                    return true
                }
            default:
                return false
            }
        }
        guard let forward else { APIViolation.unexpectedCompletion() }
        if forward { downstream.receive(completion: completion.mapFailure(logic.failure(from:))) }
    }

    @inlinable func request(_ demand: Subscribers.Demand) {
        if Step.shape == .filter { APIViolation.checkDemand(demand) }
        let (subscription, current) = lock.withLock { (upstream, phase.load(ordering: .relaxed)) }
        if Step.shape == .filter && current == Self.awaitingSubscription { APIViolation.requestBeforeSubscription() }
        subscription?.request(demand)
    }

    @inlinable func cancel() {
        let subscription = lock.withLock { () -> (any Subscription)? in
            let current = phase.load(ordering: .relaxed)
            // Before the subscription, `tryMap`, `tryScan` and the coders ignore a cancel (as Combine);
            // `filter` ends and cancels the subscription when it arrives.
            guard current == Self.active || Step.shape == .filter else { return nil }
            let subscription = upstream
            upstream = nil
            phase.store(Self.terminal, ordering: .releasing)
            return subscription
        }
        subscription?.cancel()
    }
}
