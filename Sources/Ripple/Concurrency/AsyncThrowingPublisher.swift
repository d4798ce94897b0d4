/// An asynchronous sequence of the values of a publisher that can fail: what
/// `values` returns, as in Combine.
///
/// Making an iterator subscribes to the publisher; each `next()` requests one value and waits for it,
/// returns `nil` once the publisher finished, and throws the publisher's error once if it failed (then
/// returns `nil`). Cancelling the task that waits cancels the subscription, and `next()` then returns
/// `nil`. When the last copy of an iterator goes away (for example on `break` out of a `for try await`
/// loop), the subscription is cancelled too.
///
/// ```swift
/// for try await value in publisher.values { print(value) }
/// ```
public struct AsyncThrowingPublisher<P: Publisher>: AsyncSequence {
    /// The publisher's values.
    public typealias Element = P.Output
    /// Iterating throws the publisher's error.
    public typealias Failure = any Error
    /// The iterator.
    public typealias AsyncIterator = Iterator

    private let publisher: P

    /// A sequence of `publisher`'s values.
    ///
    /// - Parameter publisher: The publisher whose values the sequence yields.
    public init(_ publisher: P) {
        self.publisher = publisher
    }

    /// Subscribes to the publisher and returns an iterator over its values.
    ///
    /// - Returns: An iterator over the publisher's values.
    public func makeAsyncIterator() -> Iterator {
        let subscriber = AsyncIteratorSubscriber<P.Output, P.Failure>()
        publisher.subscribe(subscriber)
        return Iterator(lifetime: AsyncIteratorLifetime(subscriber))
    }

    /// Requests the publisher's values one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// The publisher's values.
        public typealias Element = P.Output
        /// Iterating throws the publisher's error.
        public typealias Failure = any Error

        private let lifetime: AsyncIteratorLifetime<P.Output, P.Failure>

        fileprivate init(lifetime: AsyncIteratorLifetime<P.Output, P.Failure>) {
            self.lifetime = lifetime
        }

        /// Requests one value and waits for it; `nil` once the publisher finished or the task was
        /// cancelled. Throws the publisher's error if it failed.
        ///
        /// - Returns: The next value, or `nil` once the publisher finished or the task was cancelled.
        /// - Throws: The publisher's failure, once it failed.
        public mutating func next() async throws -> P.Output? {
            try await next(isolation: nil)
        }

        /// Requests one value and waits for it, staying on `actor`; `nil` once the publisher finished or
        /// the task was cancelled. Throws the publisher's error if it failed.
        ///
        /// - Parameter actor: The actor to stay on while waiting.
        /// - Returns: The next value, or `nil` once the publisher finished or the task was cancelled.
        /// - Throws: The publisher's failure, once it failed.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> P.Output? {
            let subscriber = lifetime.subscriber
            let outcome = await withTaskCancellationHandler(
                operation: { await subscriber.next(isolation: actor) },
                onCancel: { subscriber.cancel() },
                isolation: actor
            )
            return try outcome.get()
        }
    }
}

extension Publisher {
    /// This publisher's values as an asynchronous sequence, one requested at a time; iterating throws
    /// the publisher's error if it fails.
    ///
    /// ```swift
    /// for try await value in publisher.values { … }
    /// ```
    public var values: AsyncThrowingPublisher<Self> {
        AsyncThrowingPublisher(self)
    }
}

/// The sequence can be handed to another task when its publisher can.
extension AsyncThrowingPublisher: Sendable where P: Sendable {}
