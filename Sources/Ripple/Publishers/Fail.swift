/// A publisher that fails at once with the given error, without emitting a value.
///
/// Each subscriber receives an empty subscription (described as `"Empty"`) followed immediately by
/// `.failure(error)`, whether or not it requests anything.
public struct Fail<Output, Failure: Error>: Publisher {
    /// The error every subscriber receives.
    public let error: Failure

    /// Creates a publisher that fails every subscriber with `error`.
    ///
    /// - Parameter error: The error to fail with.
    public init(error: Failure) {
        self.error = error
    }

    /// Creates a publisher that fails every subscriber with `failure`, naming the output type
    /// explicitly (for when it cannot be inferred).
    ///
    /// - Parameters:
    ///   - outputType: The output type.
    ///   - failure: The error to fail with.
    public init(outputType: Output.Type, failure: Failure) {
        self.error = failure
    }

    /// Sends `subscriber` an empty subscription, then `.failure(error)`.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: Subscriptions.empty)
        subscriber.receive(completion: .failure(error))
    }
}

extension Fail: Equatable where Failure: Equatable {}

extension Fail: Sendable where Failure: Sendable {}
