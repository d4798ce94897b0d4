/// One subscriber's subscription to a subject: its demand and phase, kept by the subject's
/// ``SubjectCore``.
///
/// Fields marked "core" are read and written only under the core's lock; fields marked "drain" only
/// by the thread that currently owns the core's delivery (see ``SubjectCore``), which takes ownership
/// under the lock.
internal class SubjectConduit<Output, Failure: Error>: Subscription, CustomStringConvertible {
    enum Phase {
        /// `receive(subscription:)` is running; values are not yet delivered.
        case subscribing
        /// Values and the completion may be delivered.
        case subscribed
        /// Cancelled or completed; nothing more is delivered.
        case finished
    }

    /// The subject's engine; kept alive by the subscriber holding this subscription.
    let core: any SubjectConduitOwner<Output, Failure>

    /// core: the phase.
    nonisolated(unsafe) var phase = Phase.subscribing
    /// core: values the subscriber asked for and has not received.
    nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// core: whether the subscriber has received the subject's latest value (replaying subjects).
    nonisolated(unsafe) var hasLatest = false
    /// core: a completion that arrived while ``phase`` was `.subscribing`.
    nonisolated(unsafe) var pendingCompletion: Subscribers.Completion<Failure>?
    /// drain: chosen to receive the value being delivered.
    nonisolated(unsafe) var isSelected = false
    /// drain: the demand the subscriber returned from the last delivery, not yet added.
    nonisolated(unsafe) var returnedDemand = Subscribers.Demand.none

    init(core: any SubjectConduitOwner<Output, Failure>) {
        self.core = core
    }

    /// Delivers `value` to the subscriber; returns its extra demand. Called by the drain owner only.
    func deliver(_ value: Output) -> Subscribers.Demand { .none }

    /// Delivers `completion` to the subscriber. Called by the drain owner or the subscribing thread.
    func deliver(completion: Subscribers.Completion<Failure>) {}

    /// Drops the reference to the subscriber. Called once nothing can deliver to it any more.
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

/// The subscription a subject hands to a subscriber of type `Downstream`.
internal final class SubjectSubscription<Downstream: Subscriber>: SubjectConduit<Downstream.Input, Downstream.Failure> {
    /// drain (or the cancelling thread when no drain runs): the subscriber.
    private nonisolated(unsafe) var downstream: Downstream?

    init(core: any SubjectConduitOwner<Downstream.Input, Downstream.Failure>, downstream: Downstream) {
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

/// What a conduit needs from the subject engine that owns it.
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
