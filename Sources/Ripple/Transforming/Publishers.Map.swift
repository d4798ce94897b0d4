extension Publishers {
    /// A publisher that transforms every upstream value with a closure.
    ///
    /// It passes the upstream's subscription through: demand and cancellation go straight to the upstream,
    /// and the completion (finished or failed) is forwarded unchanged.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are transformed.
        public let upstream: Upstream

        /// The closure applied to each upstream value.
        public let transform: (Upstream.Output) -> Output

        /// Creates a publisher that delivers `transform` of each of `upstream`'s values.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are transformed.
        ///   - transform: the closure applied to each upstream value.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` to the upstream through a transforming subscriber.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Upstream.Failure {
            upstream.subscribe(Inner(downstream: subscriber, transform: transform))
        }
    }

    /// A publisher that transforms every upstream value with a throwing closure.
    ///
    /// A thrown error cancels the upstream and fails the stream with that error; an upstream failure is
    /// forwarded as `any Error`. It provides its own subscription (`"TryMap"`) and passes demand through.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        /// Fails with the upstream's error or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher whose values are transformed.
        public let upstream: Upstream

        /// The throwing closure applied to each upstream value.
        public let transform: (Upstream.Output) throws -> Output

        /// Creates a publisher that delivers `transform` of each of `upstream`'s values.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are transformed.
        ///   - transform: the throwing closure applied to each upstream value.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Attaches `subscriber` to the upstream through a `"TryMap"` subscription.
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

extension Publishers.Map {
    /// The subscriber `Map` attaches upstream: it hands the upstream subscription straight to the downstream.
    @usableFromInline
    struct Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let combineIdentifier = CombineIdentifier()
        @usableFromInline let downstream: Downstream
        @usableFromInline let transform: (Upstream.Output) -> Output

        @inlinable init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output) {
            self.downstream = downstream
            self.transform = transform
        }

        @usableFromInline var description: String { "Map" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(transform(input))
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }

    /// Fuses a second transform into this map: one `Map` applying `transform` after this one's.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: One `Map` applying `transform` after this one's.
    @inlinable
    public func map<Result>(_ transform: @escaping (Output) -> Result) -> Publishers.Map<Upstream, Result> {
        let first = self.transform
        return Publishers.Map(upstream: upstream) { transform(first($0)) }
    }

    /// Fuses a throwing transform into this map: one `TryMap` applying `transform` after this one's.
    ///
    /// - Parameter transform: The transform applied after this one's; it may throw.
    /// - Returns: One `TryMap` applying `transform` after this one's.
    @inlinable
    public func tryMap<Result>(
        _ transform: @escaping (Output) throws -> Result
    ) -> Publishers.TryMap<Upstream, Result> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}

extension Publishers.TryMap {
    /// The per-value logic of `TryMap`: apply the closure, fail on a thrown error.
    @usableFromInline
    struct Step: TransformingStep, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryMap" }
        @usableFromInline static var shape: TransformingStepShape { .map }
        @usableFromInline typealias Failure = any Error

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let transform: (Upstream.Output) throws -> Output

        @inlinable init(transform: @escaping (Upstream.Output) throws -> Output) {
            self.transform = transform
        }

        @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
            do {
                return try transform(input)
            } catch {
                thrown = error
                throw .fail
            }
        }
    }

    /// Fuses a transform into this one: one `TryMap` applying `transform` after this one's.
    ///
    /// - Parameter transform: The transform applied after this one's.
    /// - Returns: One `TryMap` applying `transform` after this one's.
    @inlinable
    public func map<Result>(_ transform: @escaping (Output) -> Result) -> Publishers.TryMap<Upstream, Result> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
    }

    /// Fuses a throwing transform into this one: one `TryMap` applying `transform` after this one's.
    ///
    /// - Parameter transform: The transform applied after this one's; it may throw.
    /// - Returns: One `TryMap` applying `transform` after this one's.
    @inlinable
    public func tryMap<Result>(
        _ transform: @escaping (Output) throws -> Result
    ) -> Publishers.TryMap<Upstream, Result> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
    }
}

extension Publisher {
    /// Transforms every value with `transform`.
    ///
    /// - Parameter transform: The closure applied to each value.
    /// - Returns: a publisher that emits `transform(value)` for each upstream value and completes as the
    ///   upstream does; demand and cancellation pass straight through.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }

    /// Transforms every value with a throwing closure.
    ///
    /// - Parameter transform: The closure applied to each value; it may throw.
    /// - Returns: a publisher that emits `transform(value)` for each upstream value; if `transform` throws,
    ///   it cancels the upstream and fails with the thrown error. Upstream failures pass through as
    ///   `any Error`.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }

    /// Replaces each `nil` value with `output`.
    ///
    /// - Parameter output: The value that replaces each `nil`.
    /// - Returns: a `Map` that emits the unwrapped value, or `output` for `nil`, and completes as the
    ///   upstream does.
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        Publishers.Map(upstream: self) { $0 ?? output }
    }
}
