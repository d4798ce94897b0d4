extension Publishers {
    /// A publisher that ignores every upstream value and only passes on the completion.
    ///
    /// It hands the upstream's subscription to the downstream, then requests `.unlimited` from the upstream.
    public struct IgnoreOutput<Upstream: Publisher>: Publisher {
        /// No value is ever published.
        public typealias Output = Never
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are ignored.
        public let upstream: Upstream

        /// Creates a publisher that only passes on `upstream`'s completion.
        ///
        /// - Parameter upstream: The publisher whose completion is passed on.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a value-dropping subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Never, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber))
        }
    }
}

extension Publishers.IgnoreOutput: Equatable where Upstream: Equatable {}

extension Publishers.IgnoreOutput {
    /// The subscriber `IgnoreOutput` attaches upstream.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Never, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let combineIdentifier = CombineIdentifier()
        @usableFromInline let downstream: Downstream

        @inlinable init(downstream: Downstream) {
            self.downstream = downstream
        }

        @usableFromInline var description: String { "IgnoreOutput" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
            subscription.request(.unlimited)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            .none
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }
}

extension Publisher {
    /// Ignores every value, passing on only the completion.
    ///
    /// - Returns: a publisher of `Never` that finishes or fails as the upstream does; it requests unlimited
    ///   values from the upstream.
    @inlinable
    public func ignoreOutput() -> Publishers.IgnoreOutput<Self> {
        Publishers.IgnoreOutput(upstream: self)
    }
}
