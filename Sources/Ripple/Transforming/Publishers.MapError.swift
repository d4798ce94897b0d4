extension Publishers {
    /// A publisher that converts the upstream's failure into another error.
    ///
    /// Values and demand pass straight through (the upstream's subscription is handed downstream); a failure
    /// is delivered as `transform(error)`, a normal finish unchanged.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output

        /// The publisher whose failure is converted.
        public let upstream: Upstream

        /// The closure that converts the upstream's error.
        public let transform: (Upstream.Failure) -> Failure

        /// Creates a publisher that fails with `map(error)` when `upstream` fails with `error`.
        ///
        /// - Parameters:
        ///   - upstream: The publisher whose failure is converted.
        ///   - map: Converts the upstream's failure.
        @inlinable
        public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            transform = map
        }

        /// Creates a publisher that fails with `transform(error)` when `upstream` fails with `error`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose failure is converted.
        ///   - transform: the closure that converts the upstream's error.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` to the upstream through an error-converting subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.MapError {
    /// The subscriber `MapError` attaches upstream: it hands the upstream subscription straight to the
    /// downstream and converts a failure.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Failure {
        @usableFromInline typealias Input = Upstream.Output

        @usableFromInline let combineIdentifier = CombineIdentifier()
        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Failure) -> Failure

        @inlinable init(downstream: Downstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.downstream = downstream
            self.transform = transform
        }

        @usableFromInline var description: String { "MapError" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            downstream.receive(completion: completion.mapFailure(transform))
        }
    }
}

extension Publisher {
    /// Converts the failure with `transform`.
    ///
    /// - Parameter transform: Converts the upstream's failure.
    /// - Returns: a publisher that emits the upstream's values unchanged and, if the upstream fails with
    ///   `error`, fails with `transform(error)`.
    @inlinable
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform)
    }
}
