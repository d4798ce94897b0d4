/// A type that can deliver a sequence of values over time to subscribers.
///
/// As in Combine, a publisher delivers values of type `Output` and ends either with `.finished` or with a
/// `.failure(Failure)`. Nothing is delivered until a subscriber attaches and requests demand; a
/// publisher never sends more values than were requested.
public protocol Publisher<Output, Failure> {
    /// The kind of values this publisher emits.
    associatedtype Output
    /// The kind of error this publisher may fail with; `Never` when it cannot fail.
    associatedtype Failure: Error

    /// Attaches `subscriber` to this publisher.
    ///
    /// Implementations must call `subscriber.receive(subscription:)` exactly once. Call
    /// `subscribe(_:)` (with a subscriber) rather than this method in your own code.
    ///
    /// - Parameter subscriber: the subscriber.
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure
}

extension Publisher {
    /// Attaches `subscriber` to this publisher: the publisher then sends it a subscription, and values
    /// and a completion as demanded.
    ///
    /// Transparent (inlined at every call site before optimisation) so that an operator subscribing to
    /// its upstream calls the upstream's `receive(subscriber:)` directly: a chain of operators is then a
    /// chain of distinct functions, which the optimiser specialises for the concrete subscriber types in
    /// the client module (through this one generic forwarding function it would stop after one level,
    /// taking the growing subscriber types for an endless specialisation).
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @_transparent
    public func subscribe<S: Subscriber>(_ subscriber: S) where S.Input == Output, S.Failure == Failure {
        receive(subscriber: subscriber)
    }
}
