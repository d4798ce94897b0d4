extension Publishers {
    /// A publisher that cannot fail, presented with another failure type so that it can be combined with
    /// publishers that can.
    ///
    /// Values, demand and the finish pass straight through (the upstream's subscription is handed downstream).
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        /// The upstream's value type.
        public typealias Output = Upstream.Output

        /// The publisher whose failure type changes.
        public let upstream: Upstream

        /// Creates a publisher that behaves as `upstream` with the failure type `Failure`.
        ///
        /// - Parameter upstream: The publisher that cannot fail.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a pass-through subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber))
        }

        /// Changes the failure type again, keeping a single `SetFailureType` over the same upstream.
        ///
        /// - Parameter failure: The new failure type.
        /// - Returns: A single `SetFailureType` over the same upstream.
        @inlinable
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {}

extension Publishers.SetFailureType {
    /// The subscriber `SetFailureType` attaches upstream: it hands the upstream subscription straight to the
    /// downstream.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Failure {
        @usableFromInline typealias Input = Upstream.Output

        @usableFromInline let combineIdentifier = CombineIdentifier()
        @usableFromInline let downstream: Downstream

        @inlinable init(downstream: Downstream) {
            self.downstream = downstream
        }

        @usableFromInline var description: String { "SetFailureType" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: .finished)
        }
    }
}

extension Publisher where Failure == Never {
    /// Presents this publisher, which cannot fail, as one failing with `failureType`.
    ///
    /// - Parameter failureType: The failure type to present.
    /// - Returns: a publisher that emits the upstream's values and finishes as it does, never failing.
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}
