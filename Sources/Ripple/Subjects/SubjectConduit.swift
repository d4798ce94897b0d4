/// One subscriber's subscription to a subject: its demand and phase, kept by the subject's
/// ``SubjectCore``, and the subscriber itself, reached through two closures.
///
/// The closures are made by ``SubjectCore/subscribe(_:)`` where the subscriber's type is known, so in a
/// client module that inlines the subject they call the subscriber's concrete methods, fully specialised
/// (no class hierarchy or protocol dispatch on the per-value path, no generic metadata look-ups).
///
/// Fields marked "core" are read and written only under the core's lock; fields marked "drain" only
/// by the thread that currently owns the core's delivery (see ``SubjectCore``), which takes ownership
/// under the lock. That discipline makes every access exclusive, so the fields skip the dynamic
/// exclusivity check.
@usableFromInline
internal final class SubjectConduit<Output, Failure: Error>: Subscription, CustomStringConvertible {
    @usableFromInline
    enum Phase {
        /// `receive(subscription:)` is running; values are not yet delivered.
        case subscribing
        /// Values and the completion may be delivered.
        case subscribed
        /// Cancelled or completed; nothing more is delivered.
        case finished
    }

    /// The subject's engine; kept alive by the subscriber holding this subscription.
    @usableFromInline let core: any SubjectConduitOwner<Output, Failure>

    /// core: the phase.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var phase = Phase.subscribing
    /// core: values the subscriber asked for and has not received.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// core: whether the subscriber has received the subject's latest value (replaying subjects).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var hasLatest = false
    /// core: a completion that arrived while ``phase`` was `.subscribing`.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var pendingCompletion: Subscribers.Completion<Failure>?
    /// drain: chosen to receive the value being delivered.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isSelected = false
    /// drain: the demand the subscriber returned from the last delivery, not yet added.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var returnedDemand = Subscribers.Demand.none
    /// drain (or the cancelling thread when no drain runs): hands a value to the subscriber and returns
    /// its extra demand; `nil` once the subscriber is released.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var receiveValue: ((Output) -> Subscribers.Demand)?
    /// drain (or the subscribing/cancelling thread when no drain runs): hands the completion to the
    /// subscriber; `nil` once the subscriber is released.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)?

    /// Creates the subscription of `downstream` to the subject whose engine is `core`.
    @inlinable
    init<Downstream: Subscriber>(core: any SubjectConduitOwner<Output, Failure>, downstream: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Failure {
        self.core = core
        receiveValue = { downstream.receive($0) }
        receiveCompletion = { downstream.receive(completion: $0) }
    }

    /// Delivers `value` to the subscriber; returns its extra demand. Called by the drain owner only.
    @inlinable
    func deliver(_ value: Output) -> Subscribers.Demand {
        receiveValue?(value) ?? .none
    }

    /// Delivers `completion` to the subscriber. Called by the drain owner or the subscribing thread.
    @inlinable
    func deliver(completion: Subscribers.Completion<Failure>) {
        receiveCompletion?(completion)
    }

    /// Drops the references to the subscriber. Called once nothing can deliver to it any more.
    @inlinable
    func releaseDownstream() {
        receiveValue = nil
        receiveCompletion = nil
    }

    @usableFromInline var description: String { core.name }

    @usableFromInline func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        core.request(demand, for: self)
    }

    @usableFromInline func cancel() {
        core.cancel(self)
    }
}

/// What a conduit needs from the subject engine that owns it.
@usableFromInline
internal protocol SubjectConduitOwner<Output, Failure>: AnyObject, Sendable {
    associatedtype Output
    associatedtype Failure: Error
    /// The subject's name, which is its subscriptions' description.
    var name: String { get }
    /// Adds `demand` for `conduit`.
    func request(_ demand: Subscribers.Demand, for conduit: SubjectConduit<Output, Failure>)
    /// Removes `conduit`; nothing more is delivered to it.
    func cancel(_ conduit: SubjectConduit<Output, Failure>)
}
