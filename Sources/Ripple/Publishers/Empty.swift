/// A publisher that emits no value, and either finishes at once or never completes.
///
/// Each subscriber receives an empty subscription (described as `"Empty"`), then `.finished` at once
/// when ``completeImmediately`` is `true`; otherwise nothing more, ever.
public struct Empty<Output, Failure: Error>: Publisher, Equatable, Sendable {
    /// Whether subscribers receive `.finished` right after their subscription (`false`: never).
    public let completeImmediately: Bool

    /// Creates an empty publisher that finishes at once, or never when `completeImmediately` is `false`.
    ///
    /// - Parameter completeImmediately: Whether the publisher finishes as soon as a subscriber arrives.
    public init(completeImmediately: Bool = true) {
        self.completeImmediately = completeImmediately
    }

    /// Creates an empty publisher, naming its output and failure types explicitly (for when they
    /// cannot be inferred).
    ///
    /// - Parameters:
    ///   - completeImmediately: Whether the publisher finishes as soon as a subscriber arrives.
    ///   - outputType: The output type.
    ///   - failureType: The failure type.
    public init(completeImmediately: Bool = true, outputType: Output.Type, failureType: Failure.Type) {
        self.init(completeImmediately: completeImmediately)
    }

    /// Sends `subscriber` an empty subscription, then `.finished` if ``completeImmediately``.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        if completeImmediately {
            subscriber.receive(completion: .finished)
        }
    }
}
