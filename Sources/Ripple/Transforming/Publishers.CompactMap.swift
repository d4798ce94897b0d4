extension Publishers {
    /// A publisher that transforms every upstream value and republishes the non-`nil` results.
    ///
    /// It passes the upstream's subscription through; a value transformed to `nil` is answered with
    /// `.max(1)` so the upstream replaces it, and the completion is forwarded unchanged.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are transformed.
        public let upstream: Upstream

        /// The closure applied to each value; `nil` drops it.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a publisher that republishes the non-`nil` results of `transform`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are transformed.
        ///   - transform: the closure applied to each value; `nil` drops it.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` to the upstream through a transforming subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, transform: transform))
        }
    }

    /// A publisher that transforms every upstream value with a throwing closure and republishes the
    /// non-`nil` results.
    ///
    /// It provides its own subscription (`"TryCompactMap"`) and passes demand through; a `nil` result is
    /// answered with `.max(1)`. If the closure throws, the upstream is cancelled and the stream fails with
    /// the error; an upstream failure is forwarded as `any Error`.
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        /// Fails with the upstream's error or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher whose values are transformed.
        public let upstream: Upstream

        /// The throwing closure applied to each value; `nil` drops it.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates a publisher that republishes the non-`nil` results of `transform`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are transformed.
        ///   - transform: the throwing closure applied to each value; `nil` drops it.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` to the upstream through a `"TryCompactMap"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingStepSubscription(downstream: subscriber, step: Step(transform: transform))
            )
        }
    }
}

extension Publishers.CompactMap {
    /// The subscriber `CompactMap` attaches upstream: it hands the upstream subscription straight to the
    /// downstream.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let combineIdentifier = CombineIdentifier()
        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Output) -> Output?

        @inlinable init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.downstream = downstream
            self.transform = transform
        }

        @usableFromInline var description: String { "CompactMap" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            if let output = transform(input) {
                return downstream.receive(output)
            }
            return .max(1)
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }

    /// Fuses a second `compactMap` into this one: one `CompactMap` applying both closures.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: One `CompactMap` applying both closures.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
    }

    /// Fuses a `map` into this `compactMap`: one `CompactMap` applying `transform` to the non-`nil` results.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: One `CompactMap` applying `transform` to the non-`nil` results.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
    }
}

extension Publishers.TryCompactMap {
    /// The per-value logic of `TryCompactMap`.
    @usableFromInline
    struct Step: TransformingStep, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryCompactMap" }
        @usableFromInline typealias Failure = any Error

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let transform: (Upstream.Output) throws -> Output?

        @inlinable init(transform: @escaping (Upstream.Output) throws -> Output?) {
            self.transform = transform
        }

        @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
            let output: Output?
            do {
                output = try transform(input)
            } catch {
                thrown = error
                throw .fail
            }
            guard let output else { throw .skip }
            return output
        }
    }

    /// Fuses a throwing `compactMap` into this one: one `TryCompactMap` applying both closures.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: One `TryCompactMap` applying both closures.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
    }
}

extension Publisher {
    /// Transforms every value and republishes the non-`nil` results.
    ///
    /// - Parameter transform: The closure applied to each value.
    /// - Returns: a publisher that emits `transform(value)` when it is not `nil` and completes as the
    ///   upstream does; each dropped value is replaced by asking the upstream for one more.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }

    /// Transforms every value with a throwing closure and republishes the non-`nil` results.
    ///
    /// - Parameter transform: The closure applied to each value; it may throw.
    /// - Returns: a publisher that emits the non-`nil` results; if `transform` throws, it cancels the
    ///   upstream and fails with the error.
    @inlinable
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
        Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}
