extension Optional {
    /// A publisher that emits the wrapped value once and finishes, or just finishes when there is none.
    ///
    /// With a value, it is delivered on the subscriber's first request, followed at once by `.finished`
    /// (the subscription is described as `"Optional"`). With `nil`, the subscriber receives an empty
    /// subscription and `.finished` at once. It never fails.
    public struct Publisher: Ripple.Publisher {
        /// The wrapped type.
        public typealias Output = Wrapped
        /// The publisher never fails.
        public typealias Failure = Never

        /// The value every subscriber receives, if any.
        public let output: Wrapped?

        /// Creates a publisher that emits `output` if it is not `nil`, then finishes.
        ///
        /// - Parameter output: The value to publish, if any.
        public init(_ output: Output?) {
            self.output = output
        }

        /// Delivers ``output`` (if any) and `.finished` to `subscriber`.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Wrapped, S.Failure == Never {
            if let output {
                subscriber.receive(
                    subscription: JustSubscription(value: output, downstream: subscriber, description: "Optional")
                )
            } else {
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .finished)
            }
        }
    }

    /// A publisher that emits the wrapped value (if any) once, then finishes.
    public var publisher: Publisher {
        Publisher(self)
    }
}

extension Optional.Publisher: Equatable where Wrapped: Equatable {}

extension Optional.Publisher: Sendable where Wrapped: Sendable {}
