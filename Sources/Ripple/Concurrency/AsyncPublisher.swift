/// An asynchronous sequence of the values of a publisher that cannot fail: what
/// `values` returns when `Failure` is `Never`, as in Combine.
///
/// Making an iterator subscribes to the publisher; each `next()` requests one value and waits for it,
/// and returns `nil` once the publisher finished. Cancelling the task that waits cancels the
/// subscription, and `next()` then returns `nil`. When the last copy of an iterator goes away (for
/// example on `break` out of a `for await` loop), the subscription is cancelled too.
///
/// ```swift
/// for await value in publisher.values { print(value) }
/// ```
public struct AsyncPublisher<P: Publisher>: AsyncSequence where P.Failure == Never {
    /// The publisher's values.
    public typealias Element = P.Output
    /// Iterating cannot fail.
    public typealias Failure = Never
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
        let subscriber = AsyncIteratorSubscriber<P.Output, Never>()
        publisher.subscribe(subscriber)
        return Iterator(lifetime: AsyncIteratorLifetime(subscriber))
    }

    /// Requests the publisher's values one at a time.
    public struct Iterator: AsyncIteratorProtocol {
        /// The publisher's values.
        public typealias Element = P.Output
        /// Iterating cannot fail.
        public typealias Failure = Never

        private let lifetime: AsyncIteratorLifetime<P.Output, Never>

        fileprivate init(lifetime: AsyncIteratorLifetime<P.Output, Never>) {
            self.lifetime = lifetime
        }

        /// Requests one value and waits for it; `nil` once the publisher finished or the task was cancelled.
        ///
        /// - Returns: The next value, or `nil` once the publisher finished or the task was cancelled.
        public mutating func next() async -> P.Output? {
            await next(isolation: nil)
        }

        /// Requests one value and waits for it, staying on `actor`; `nil` once the publisher finished or
        /// the task was cancelled.
        ///
        /// - Parameter actor: The actor to stay on while waiting.
        /// - Returns: The next value, or `nil` once the publisher finished or the task was cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> P.Output? {
            let subscriber = lifetime.subscriber
            let outcome = await withTaskCancellationHandler(
                operation: { await subscriber.next(isolation: actor) },
                onCancel: { subscriber.cancel() },
                isolation: actor
            )
            switch outcome {
            case .success(let value): return value
            }
        }
    }
}

extension Publisher where Failure == Never {
    /// This publisher's values as an asynchronous sequence, one requested at a time.
    ///
    /// ```swift
    /// for await value in subject.values { … }
    /// ```
    public var values: AsyncPublisher<Self> {
        AsyncPublisher(self)
    }
}

/// The sequence can be handed to another task when its publisher can.
extension AsyncPublisher: Sendable where P: Sendable {}
