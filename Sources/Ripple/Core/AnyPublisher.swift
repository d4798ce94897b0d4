/// A publisher that hides the type of the publisher it wraps.
///
/// Use ``Publisher/eraseToAnyPublisher()`` to expose a pipeline as `AnyPublisher<Output, Failure>` at an
/// API boundary. It behaves exactly as the wrapped publisher.
@frozen
public struct AnyPublisher<Output, Failure: Error>: Publisher, CustomStringConvertible,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    internal let box: AnyPublisherBoxBase<Output, Failure>

    /// Wraps `publisher`.
    ///
    /// - Parameter publisher: The publisher to wrap.
    @inlinable
    public init<P: Publisher>(_ publisher: P) where P.Output == Output, P.Failure == Failure {
        if let erased = publisher as? AnyPublisher<Output, Failure> {
            box = erased.box
        } else {
            box = AnyPublisherBox(publisher)
        }
    }

    /// `"AnyPublisher"`.
    public var description: String { "AnyPublisher" }

    /// The ``description``, as Combine's playgrounds show it.
    public var playgroundDescription: Any { description }

    /// Attaches `subscriber` to the wrapped publisher.
    ///
    /// - Parameter subscriber: the subscriber.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        box.receive(subscriber: subscriber)
    }
}

@usableFromInline
internal class AnyPublisherBoxBase<Output, Failure: Error> {
    @inlinable
    init() {}

    @usableFromInline
    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        preconditionFailure("abstract")
    }
}

@usableFromInline
internal final class AnyPublisherBox<P: Publisher>: AnyPublisherBoxBase<P.Output, P.Failure> {
    @usableFromInline
    let base: P

    @inlinable
    init(_ base: P) {
        self.base = base
    }

    @inlinable
    override func receive<S: Subscriber>(subscriber: S) where S.Input == P.Output, S.Failure == P.Failure {
        base.receive(subscriber: subscriber)
    }
}

extension Publisher {
    /// Wraps this publisher in an ``AnyPublisher``, hiding its type.
    ///
    /// - Returns: This publisher, wrapped in an ``AnyPublisher``.
    @inlinable
    public func eraseToAnyPublisher() -> AnyPublisher<Output, Failure> {
        AnyPublisher(self)
    }
}
