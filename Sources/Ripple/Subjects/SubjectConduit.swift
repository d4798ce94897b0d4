/// One subscriber's subscription to a subject: its demand and phase, kept by the subject's
/// ``SubjectCore``, and the subscriber itself, held by a ``Receiver``.
///
/// The receiver is made by ``SubjectCore/subscribe(_:)`` where the subscriber's type is known, so in a
/// client module that inlines the subject its call is the subscriber's concrete methods, fully specialised
/// (no class hierarchy or protocol dispatch on the per-value path, no generic metadata look-ups).
///
/// Fields marked "core" are read and written only under the core's lock; fields marked "drain" only
/// by the thread that currently owns the core's delivery (see ``SubjectCore``), which takes ownership
/// under the lock. That discipline makes every access exclusive, so the fields skip the dynamic
/// exclusivity check.
@usableFromInline
internal final class SubjectConduit<Output, Failure: Error>: Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    /// Not a ``SubscriptionLifecycle``: the subject's side of one downstream subscription, holding no upstream.
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
    @usableFromInline let core: SubjectConduitOwner<Output, Failure>

    /// core: the phase.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var phase = Phase.subscribing
    /// core: values the subscriber asked for and has not received.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// core: whether the subscriber has received the subject's latest value (replaying subjects).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var hasLatest = false
    /// core: the subject, kept alive by its live subscriptions (as in Combine) until this one ends.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var parent: AnyObject?
    /// core: the subject's completion (its `terminal`) arrived while ``phase`` was `.subscribing`. A flag
    /// rather than the completion itself: a field whose type is built from `Failure` would make this
    /// class's (unspecialised) deinit look its metadata up at run time, once per subscription.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var hasPendingCompletion = false
    /// drain: chosen to receive the value being delivered.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var isSelected = false
    /// drain: the demand the subscriber returned from the last delivery, not yet added.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var returnedDemand = Subscribers.Demand.none
    /// drain (or the subscribing/cancelling thread when no drain runs), written only under the core's lock:
    /// owns the subscriber, reached through ``Receiver``; `nil` once the subscriber is released.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var receiver: Receiver?
    /// drain: the same receiver, not retained, for the value path: set exactly while ``receiver`` is, and
    /// only the drain owner (or, when no drain runs, the thread that holds the core's lock decision to
    /// release) clears both, so the drain owner may use it without retaining it for each value.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var unretainedReceiver: Unmanaged<Receiver>?

    /// Creates the subscription of `downstream` to `parent`, the subject whose engine is `core`.
    @inlinable
    init<Downstream: Subscriber>(
        core: SubjectConduitOwner<Output, Failure>,
        parent: AnyObject,
        downstream: Downstream
    ) where Downstream.Input == Output, Downstream.Failure == Failure {
        self.core = core
        self.parent = parent
        let receiver = TypedReceiver(downstream)
        self.receiver = receiver
        unretainedReceiver = Unmanaged.passUnretained(receiver)
    }

    /// Delivers `value` to the subscriber; returns its extra demand. Called by the drain owner only.
    @inlinable
    func deliver(_ value: Output) -> Subscribers.Demand {
        guard let unretainedReceiver else { return .none }
        return unretainedReceiver._withUnsafeGuaranteedRef { $0.receive(.value(value)) }
    }

    /// Delivers `completion` to the subscriber. Called by the drain owner or the subscribing thread.
    @inlinable
    func deliver(completion: Subscribers.Completion<Failure>) {
        _ = receiver?.receive(.completion(completion))
    }

    /// Takes the references to the subscriber and the subject, for the caller to drop after the core's
    /// lock. Called with the core's lock held, once nothing can deliver to the subscriber any more.
    @inlinable
    func takeReferences() -> (Receiver?, AnyObject?) {
        unretainedReceiver = nil
        defer {
            receiver = nil
            parent = nil
        }
        return (receiver, parent)
    }

    @usableFromInline var description: String { core.name }

    @usableFromInline var playgroundDescription: Any { description }

    /// Combine's children: the subject (`parent`, and again as `subject`; `nil` once the subscription
    /// ended), the subscriber (`nil` once it ended) and the outstanding demand.
    @usableFromInline var customMirror: Mirror {
        let (parent, receiver, demand) = core.reflectConduit(core, self)
        var downstream: Any?
        _ = receiver?.receive(.reflect({ downstream = $0 }))
        let children: [Mirror.Child] = [
            ("parent", parent as Any), ("downstream", downstream as Any), ("demand", demand),
            ("subject", parent as Any),
        ]
        return Mirror(self, children: children)
    }

    @usableFromInline func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        core.requestForConduit(core, demand, self)
    }

    @usableFromInline func cancel() {
        core.cancelConduit(core, self)
    }
}

extension SubjectConduit {
    /// What a conduit hands its subscriber.
    @usableFromInline
    enum Signal {
        case value(Output)
        case completion(Subscribers.Completion<Failure>)
        /// Hands the subscriber to the closure (for ``customMirror``).
        case reflect((Any) -> Void)
    }

    /// The subscriber, reached through a function made where its type is known (so that the call is
    /// specialised in a client module); a class so that the drain owner can call it through an
    /// unretained reference. Its one subclass, ``TypedReceiver``, holds the subscriber itself: one object
    /// per subscription (a closure capturing the subscriber would be a second one).
    @usableFromInline
    class Receiver {
        /// Hands a signal to the subscriber of the ``TypedReceiver`` it is given (its own receiver): a
        /// function without captures, so it allocates nothing where the subscriber's type is concrete.
        @usableFromInline let call: (Receiver, Signal) -> Subscribers.Demand

        @inlinable init(call: @escaping (Receiver, Signal) -> Subscribers.Demand) {
            self.call = call
        }

        /// Hands `signal` to the subscriber; returns its extra demand (`.none` for a completion).
        @inlinable func receive(_ signal: Signal) -> Subscribers.Demand {
            call(self, signal)
        }
    }

    /// The receiver of a subscriber of type `Downstream`, which it holds.
    @usableFromInline
    final class TypedReceiver<Downstream: Subscriber>: Receiver
    where Downstream.Input == Output, Downstream.Failure == Failure {
        @usableFromInline let downstream: Downstream

        @inlinable init(_ downstream: Downstream) {
            self.downstream = downstream
            super.init { receiver, signal in
                // The subscriber is read in place from its receiver (a `let`): no copy, no retain.
                switch signal {
                case .value(let value):
                    return unsafeDowncast(receiver, to: TypedReceiver.self).downstream.receive(value)
                case .completion(let completion):
                    unsafeDowncast(receiver, to: TypedReceiver.self).downstream.receive(completion: completion)
                    return .none
                case .reflect(let show):
                    show(unsafeDowncast(receiver, to: TypedReceiver.self).downstream)
                    return .none
                }
            }
        }
    }
}

/// What a conduit needs from the subject engine that owns it: the engine's base class.
///
/// A subscriber calls its subscription (this conduit) through the `Subscription` protocol, which runs the
/// conduit's methods unspecialised: generic code that looks the metadata of every type built from `Output`
/// and `Failure` up at run time (a hash-table search each: in a subscribe/cancel loop that was about 40%
/// of the time). So the engine's operations are stored functions made where the engine is created
/// (``SubjectCore/init(name:replay:requestsUpstreamAtOnce:)``, inlined into the subject's initialiser in the
/// client module): there they are specialised for the subject's concrete types, and the conduit's
/// unspecialised methods only read a field and call one of them.
@usableFromInline
internal class SubjectConduitOwner<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Conduit = SubjectConduit<Output, Failure>

    /// The subject's name, which is its subscriptions' description.
    @usableFromInline let name: String
    /// Adds the demand for the conduit; called with the engine itself.
    @usableFromInline let requestForConduit: (SubjectConduitOwner, Subscribers.Demand, Conduit) -> Void
    /// Removes the conduit; nothing more is delivered to it. Called with the engine itself.
    @usableFromInline let cancelConduit: (SubjectConduitOwner, Conduit) -> Void
    /// The subject, subscriber and demand of the conduit, read under the engine's lock (for its mirror).
    @usableFromInline let reflectConduit:
        (SubjectConduitOwner, Conduit) -> (parent: AnyObject?, receiver: Conduit.Receiver?, demand: Subscribers.Demand)

    /// Creates the base of an engine named `name` with its operations (functions without captures, which
    /// receive the engine as their first argument).
    @inlinable
    init(
        name: String,
        request: @escaping (SubjectConduitOwner, Subscribers.Demand, Conduit) -> Void,
        cancel: @escaping (SubjectConduitOwner, Conduit) -> Void,
        reflect:
            @escaping (SubjectConduitOwner, Conduit) -> (
                parent: AnyObject?, receiver: Conduit.Receiver?, demand: Subscribers.Demand
            )
    ) {
        self.name = name
        requestForConduit = request
        cancelConduit = cancel
        reflectConduit = reflect
    }
}
