/// A type that receives a subscription, values and at most one completion from a publisher.
///
/// The calls arrive in this order: `receive(subscription:)` once, then `receive(_:)` zero or more times
/// (never more often than demanded), then `receive(completion:)` at most once. Calls are serialised.
public protocol Subscriber<Input, Failure>: CustomCombineIdentifierConvertible {
    /// The kind of values this subscriber receives.
    associatedtype Input
    /// The kind of error this subscriber may receive.
    associatedtype Failure: Error

    /// Tells the subscriber it has been attached; the subscriber requests values through `subscription`.
    ///
    /// - Parameter subscription: The subscription through which the subscriber requests values.
    func receive(subscription: any Subscription)

    /// Delivers one value and returns how many more values the subscriber wants, added to what it asked
    /// for before (`.none` for no more than already requested).
    ///
    /// - Parameter input: The value received.
    /// - Returns: The additional demand: how many more values the subscriber wants.
    func receive(_ input: Input) -> Subscribers.Demand

    /// Tells the subscriber the publisher has finished or failed; nothing follows.
    ///
    /// - Parameter completion: How the publisher ended: finished, or failed with an error.
    func receive(completion: Subscribers.Completion<Failure>)
}

extension Subscriber where Input == Void {
    /// Delivers a `Void` value; returns the additional demand, as ``receive(_:)``.
    ///
    /// - Returns: The additional demand: how many more values the subscriber wants.
    @inlinable
    public func receive() -> Subscribers.Demand {
        receive(())
    }
}
