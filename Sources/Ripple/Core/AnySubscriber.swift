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

    /// Wraps `subscriber`; its identifier, description and mirror show through.
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
        descriptionBody = (subscriber as? any CustomStringConvertible).map { value in { value.description } }
        mirrorBody = (subscriber as? any CustomReflectable).map { value in { value.customMirror } }
    }

    /// Wraps `subject`: the subscriber forwards subscriptions, values and completion to it and requests
    /// unlimited demand.
    ///
    /// - Parameter subject: The subject to forward to.
    public init<S: Subject>(_ subject: S) where S.Output == Input, S.Failure == Failure {
        self.init(
            receiveSubscription: { subscription in
                subject.send(subscription: subscription)
                subscription.request(.unlimited)
            },
            receiveValue: { value in
                subject.send(value)
                return .none
            },
            receiveCompletion: { completion in
                subject.send(completion: completion)
            }
        )
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
    }

    /// The wrapped subscriber's description, or `"Anonymous AnySubscriber"`.
    public var description: String {
        descriptionBody?() ?? "Anonymous AnySubscriber"
    }

    /// The wrapped subscriber's mirror, or an empty one.
    public var customMirror: Mirror {
        mirrorBody?() ?? Mirror(self, children: [:])
    }

    /// The description, for playgrounds.
    public var playgroundDescription: Any { description }

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
