extension Publishers {
    /// A publisher that republishes only the upstream values a predicate accepts.
    ///
    /// It passes the upstream's subscription through; each rejected value is answered with `.max(1)` so the
    /// upstream replaces it, and the completion is forwarded unchanged.
    public struct Filter<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are filtered.
        public let upstream: Upstream

        /// The predicate deciding whether a value is republished.
        public let isIncluded: (Upstream.Output) -> Bool

        /// Creates a publisher that republishes the values of `upstream` for which `isIncluded` is `true`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are filtered.
        ///   - isIncluded: the predicate deciding whether a value is republished.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches `subscriber` to the upstream through a filtering subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, isIncluded: isIncluded))
        }
    }

    /// A publisher that republishes only the upstream values a throwing predicate accepts.
    ///
    /// It provides its own subscription (`"TryFilter"`) and passes demand through; a rejected value is
    /// answered with `.max(1)`. If the predicate throws, the upstream is cancelled and the stream fails with
    /// the error; an upstream failure is forwarded as `any Error`.
    public struct TryFilter<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// Fails with the upstream's error or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher whose values are filtered.
        public let upstream: Upstream

        /// The throwing predicate deciding whether a value is republished.
        public let isIncluded: (Upstream.Output) throws -> Bool

        /// Creates a publisher that republishes the values of `upstream` for which `isIncluded` is `true`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are filtered.
        ///   - isIncluded: the throwing predicate deciding whether a value is republished.
        @inlinable
        public init(upstream: Upstream, isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.isIncluded = isIncluded
        }

        /// Attaches `subscriber` to the upstream through a `"TryFilter"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingStepSubscription(downstream: subscriber, step: Step(isIncluded: isIncluded))
            )
        }
    }
}

extension Publishers.Filter {
    /// The subscriber `Filter` attaches upstream: it hands the upstream subscription straight to the
    /// downstream.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let combineIdentifier = CombineIdentifier()
        @usableFromInline let downstream: Downstream
        @usableFromInline let isIncluded: (Upstream.Output) -> Bool

        @inlinable init(downstream: Downstream, isIncluded: @escaping (Upstream.Output) -> Bool) {
            self.downstream = downstream
            self.isIncluded = isIncluded
        }

        @usableFromInline var description: String { "Filter" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            isIncluded(input) ? downstream.receive(input) : .max(1)
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }

    /// Fuses a second predicate into this filter: one `Filter` accepting values both predicates accept.
    ///
    /// - Parameter isIncluded: The predicate fused after this one.
    /// - Returns: One `Filter` accepting values both predicates accept.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Upstream> {
        let first = self.isIncluded
        return Publishers.Filter(upstream: upstream) { first($0) && isIncluded($0) }
    }

    /// Fuses a throwing predicate into this filter: one `TryFilter` accepting values both predicates accept.
    ///
    /// - Parameter isIncluded: The predicate fused after this one; it may throw.
    /// - Returns: One `TryFilter` accepting values both predicates accept.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}

extension Publishers.TryFilter {
    /// The per-value logic of `TryFilter`.
    @usableFromInline
    struct Step: TransformingStep, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryFilter" }
        @usableFromInline typealias Failure = any Error

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let isIncluded: (Upstream.Output) throws -> Bool

        @inlinable init(isIncluded: @escaping (Upstream.Output) throws -> Bool) {
            self.isIncluded = isIncluded
        }

        @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
            let included: Bool
            do {
                included = try isIncluded(input)
            } catch {
                thrown = error
                throw .fail
            }
            guard included else { throw .skip }
            return input
        }
    }

    /// Fuses a predicate into this one: one `TryFilter` accepting values both predicates accept.
    ///
    /// - Parameter isIncluded: The predicate fused after this one.
    /// - Returns: One `TryFilter` accepting values both predicates accept.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }

    /// Fuses a throwing predicate into this one: one `TryFilter` accepting values both predicates accept.
    ///
    /// - Parameter isIncluded: The predicate fused after this one; it may throw.
    /// - Returns: One `TryFilter` accepting values both predicates accept.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Upstream> {
        let first = self.isIncluded
        return Publishers.TryFilter(upstream: upstream) { try first($0) && isIncluded($0) }
    }
}

extension Publisher {
    /// Republishes only the values `isIncluded` accepts.
    ///
    /// - Parameter isIncluded: Whether a value is republished.
    /// - Returns: a publisher that emits the upstream values for which `isIncluded` returns `true` and
    ///   completes as the upstream does; each rejected value is replaced by asking the upstream for one more.
    @inlinable
    public func filter(_ isIncluded: @escaping (Output) -> Bool) -> Publishers.Filter<Self> {
        Publishers.Filter(upstream: self, isIncluded: isIncluded)
    }

    /// Republishes only the values a throwing predicate accepts.
    ///
    /// - Parameter isIncluded: Whether a value is republished; it may throw.
    /// - Returns: a publisher that emits the upstream values for which `isIncluded` returns `true`; if the
    ///   predicate throws, it cancels the upstream and fails with the error.
    @inlinable
    public func tryFilter(_ isIncluded: @escaping (Output) throws -> Bool) -> Publishers.TryFilter<Self> {
        Publishers.TryFilter(upstream: self, isIncluded: isIncluded)
    }
}
