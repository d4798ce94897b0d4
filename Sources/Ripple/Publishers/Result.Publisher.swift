extension Result {
    /// A publisher that emits the success value of a result once, then finishes, or fails with its
    /// error.
    ///
    /// For a success, the value is delivered on the subscriber's first request, followed at once by
    /// `.finished` (the subscription is described as `"Once"`). For a failure, the subscriber receives an
    /// empty subscription and then `.failure` at once, without requesting.
    public struct Publisher: Ripple.Publisher {
        /// The success type of the result.
        public typealias Output = Success

        /// The result every subscriber receives.
        public let result: Result<Success, Failure>

        /// Creates a publisher of `result`.
        ///
        /// - Parameter result: The result to publish.
        public init(_ result: Result<Success, Failure>) {
            self.result = result
        }

        /// Creates a publisher that emits `output` once, then finishes.
        ///
        /// - Parameter output: The value to publish.
        public init(_ output: Output) {
            self.init(.success(output))
        }

        /// Creates a publisher that fails with `failure`.
        ///
        /// - Parameter failure: The error to fail with.
        public init(_ failure: Failure) {
            self.init(.failure(failure))
        }

        /// Delivers the result to `subscriber`: the value then `.finished` on demand, or `.failure` at once.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Success, S.Failure == Failure {
            switch result {
            case .success(let value):
                subscriber.receive(
                    subscription: JustSubscription(value: value, downstream: subscriber, description: "Once")
                )
            case .failure(let error):
                subscriber.receive(subscription: Subscriptions.empty)
                subscriber.receive(completion: .failure(error))
            }
        }
    }

    /// A publisher that emits this result's success value and finishes, or fails with its error.
    public var publisher: Publisher {
        Publisher(self)
    }
}

extension Result.Publisher: Equatable where Success: Equatable, Failure: Equatable {}

extension Result.Publisher: Sendable where Success: Sendable, Failure: Sendable {}
