/// A publisher that emits one value to each subscriber, then finishes.
///
/// The value is delivered on the subscriber's first request (of any size), followed at once by
/// `.finished`. `Just` cannot fail. Its subscription is described as `"Just"`.
public struct Just<Output>: Publisher {
    /// `Just` never fails.
    public typealias Failure = Never

    /// The value every subscriber receives.
    public let output: Output

    /// Creates a publisher that emits `output` once to each subscriber, then finishes.
    ///
    /// - Parameter output: The value to publish.
    public init(_ output: Output) {
        self.output = output
    }

    /// Gives `subscriber` a subscription that delivers ``output`` and `.finished` on the first request.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(
            subscription: JustSubscription(value: output, downstream: subscriber, description: "Just")
        )
    }
}

extension Just: Equatable where Output: Equatable {}

extension Just: Sendable where Output: Sendable {}
