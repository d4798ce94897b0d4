/// A subscriber that hides the type of the subscriber it wraps, or that is made of three closures.
@frozen
public struct AnySubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    /// The identifier of the wrapped subscriber (or a fresh one for a closure-based subscriber).
    public let combineIdentifier: CombineIdentifier

    @usableFromInline
    internal let receiveSubscriptionBody: ((any Subscription) -> Void)?
    @usableFromInline
    internal let receiveValueBody: ((Input) -> Subscribers.Demand)?
    @usableFromInline
    internal let receiveCompletionBody: ((Subscribers.Completion<Failure>) -> Void)?
    private let descriptionBody: (() -> String)?
    private let mirrorBody: (() -> Mirror)?
    private let playgroundBody: (() -> Any)?

    /// Wraps `subscriber`; its identifier, description, mirror and playground description show through (a
    /// subscriber that has no description of its own is described by its type's name).
    ///
    /// - Parameter subscriber: The subscriber to wrap.
    public init<S: Subscriber>(_ subscriber: S) where S.Input == Input, S.Failure == Failure {
        if let erased = subscriber as? AnySubscriber<Input, Failure> {
            self = erased
            return
        }
        combineIdentifier = subscriber.combineIdentifier
        receiveSubscriptionBody = subscriber.receive(subscription:)
        receiveValueBody = subscriber.receive(_:)
        receiveCompletionBody = subscriber.receive(completion:)
        let description: () -> String
        if let describable = subscriber as? any CustomStringConvertible {
            description = { describable.description }
        } else {
            let typeName = String(describing: S.self)
            description = { typeName }
        }
        descriptionBody = description
        mirrorBody = {
            (subscriber as? any CustomReflectable)?.customMirror ?? Mirror(subscriber, children: EmptyCollection())
        }
        if let displayable = subscriber as? any CustomPlaygroundDisplayConvertible {
            playgroundBody = { displayable.playgroundDescription }
        } else {
            playgroundBody = description
        }
    }

    /// Wraps `subject` as ``Publisher/subscribe(_:)-(Subject)`` does: the subject receives a subscription
    /// of its own (described as `"Subject"`) and decides the demand; values and the completion are sent
    /// into it.
    ///
    /// - Parameter subject: The subject to forward to.
    public init<S: Subject>(_ subject: S) where S.Output == Input, S.Failure == Failure {
        self.init(SubjectSubscriber(subject))
    }

    /// A subscriber that calls the given closures; a missing closure does nothing (a missing
    /// `receiveValue` asks for no more values).
    ///
    /// - Parameters:
    ///   - receiveSubscription: Called with the subscription.
    ///   - receiveValue: Called with each value; returns the additional demand.
    ///   - receiveCompletion: Called with the completion.
    public init(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveValue: ((Input) -> Subscribers.Demand)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil
    ) {
        combineIdentifier = CombineIdentifier()
        receiveSubscriptionBody = receiveSubscription
        receiveValueBody = receiveValue
        receiveCompletionBody = receiveCompletion
        descriptionBody = nil
        mirrorBody = nil
        playgroundBody = nil
    }

    /// The wrapped subscriber's description, or `"Anonymous AnySubscriber"`.
    public var description: String {
        descriptionBody?() ?? "Anonymous AnySubscriber"
    }

    /// The wrapped subscriber's mirror (one without children when it has no mirror of its own), or, for a
    /// closure-based subscriber, the mirror of its description.
    public var customMirror: Mirror {
        mirrorBody?() ?? Mirror(reflecting: description)
    }

    /// The wrapped subscriber's playground description (or its description), or the description.
    public var playgroundDescription: Any { playgroundBody?() ?? description }

    /// Forwards the subscription.
    ///
    /// - Parameter subscription: The subscription to forward.
    @inlinable
    public func receive(subscription: any Subscription) {
        receiveSubscriptionBody?(subscription)
    }

    /// Forwards the value and returns the wrapped subscriber's answer.
    ///
    /// - Parameter value: The value received.
    /// - Returns: The wrapped subscriber's additional demand.
    @inlinable
    public func receive(_ value: Input) -> Subscribers.Demand {
        receiveValueBody?(value) ?? .none
    }

    /// Forwards the completion.
    ///
    /// - Parameter completion: How the publisher ended: finished, or failed with an error.
    @inlinable
    public func receive(completion: Subscribers.Completion<Failure>) {
        receiveCompletionBody?(completion)
    }
}
