extension Subscribers {
    /// How a publisher ended: normally, or with an error.
    @frozen
    public enum Completion<Failure: Error> {
        /// The publisher finished normally.
        case finished
        /// The publisher stopped because of `Failure`.
        case failure(Failure)
    }
}

extension Subscribers.Completion: Equatable where Failure: Equatable {}
extension Subscribers.Completion: Hashable where Failure: Hashable {}
extension Subscribers.Completion: Sendable where Failure: Sendable {}

extension Subscribers.Completion {
    /// The same completion with its error transformed by `transform`.
    @inlinable
    internal func mapFailure<NewFailure: Error>(_ transform: (Failure) -> NewFailure)
        -> Subscribers.Completion<NewFailure>
    {
        switch self {
        case .finished: .finished
        case .failure(let error): .failure(transform(error))
        }
    }

}
