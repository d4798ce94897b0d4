@testable import Ripple

/// An error for tests to fail publishers with.
enum TestError: Error, Equatable, Sendable {
    case oops
    case other
}

/// One thing a ``TestSubscriber`` saw, for exact comparisons of whole sequences.
enum Event<Value: Equatable, Failure: Error & Equatable>: Equatable, CustomStringConvertible {
    /// A subscription arrived; the payload is `String(describing:)` of it (Combine's operator names).
    case subscription(String)
    case value(Value)
    case completion(Subscribers.Completion<Failure>)

    static var finished: Event { .completion(.finished) }
    static func failure(_ error: Failure) -> Event { .completion(.failure(error)) }

    var description: String {
        switch self {
        case .subscription(let name): "subscription(\(name))"
        case .value(let value): "value(\(value))"
        case .completion(.finished): "finished"
        case .completion(.failure(let error)): "failure(\(error))"
        }
    }
}
