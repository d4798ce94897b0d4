extension Publishers {
    /// A publisher that publishes whether the upstream emits a given value.
    ///
    /// It provides its own subscription (`"Contains"`) and requests `.unlimited` from the upstream once the
    /// downstream has the subscription. On the first equal value it cancels the upstream and publishes
    /// `true`; if the upstream finishes without one it publishes `false`. Either way `.finished` follows,
    /// once the downstream has requested. An upstream failure passes through.
    public struct Contains<Upstream: Publisher>: Publisher where Upstream.Output: Equatable {
        /// Whether the value was seen.
        public typealias Output = Bool
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher searched.
        public let upstream: Upstream

        /// The value searched for.
        public let output: Upstream.Output

        /// Creates a publisher that publishes whether `upstream` emits `output`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - output: the value searched for.
        @inlinable
        public init(upstream: Upstream, output: Upstream.Output) {
            self.upstream = upstream
            self.output = output
        }

        /// Attaches `subscriber` to the upstream through a `"Contains"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(output: output)))
        }
    }

    /// A publisher that publishes whether the upstream emits a value satisfying a predicate.
    ///
    /// As ``Publishers/Contains`` (subscription `"ContainsWhere"`), for the first value satisfying
    /// `predicate`.
    public struct ContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether a matching value was seen.
        public typealias Output = Bool
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher searched.
        public let upstream: Upstream

        /// The predicate a matching value satisfies.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that publishes whether `upstream` emits a value satisfying `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - predicate: the predicate a matching value satisfies.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"ContainsWhere"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(predicate: predicate))
            )
        }
    }

    /// A publisher that publishes whether the upstream emits a value satisfying a throwing predicate.
    ///
    /// As ``Publishers/ContainsWhere`` (subscription `"TryContainsWhere"`); if the predicate throws, the
    /// upstream is cancelled and the stream fails with the error. An upstream failure is forwarded as
    /// `any Error`.
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        /// Whether a matching value was seen.
        public typealias Output = Bool
        /// Fails with the upstream's error or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher searched.
        public let upstream: Upstream

        /// The throwing predicate a matching value satisfies.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes whether `upstream` emits a value satisfying `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - predicate: the throwing predicate a matching value satisfies.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryContainsWhere"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == any Error {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(predicate: predicate))
            )
        }
    }
}

extension Publishers.Contains: Equatable where Upstream: Equatable {}

extension Publishers.Contains {
    /// The logic of `Contains`: the first equal value decides `true`.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "Contains" }

        @usableFromInline let output: Upstream.Output
        @usableFromInline var found = false

        @inlinable init(output: Upstream.Output) {
            self.output = output
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            guard input == output else { return .continue }
            found = true
            return .finish
        }

        @inlinable func takeResult() -> Bool? { found }
    }
}

extension Publishers.ContainsWhere {
    /// The logic of `ContainsWhere`: the first matching value decides `true`.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "ContainsWhere" }

        @usableFromInline let predicate: (Upstream.Output) -> Bool
        @usableFromInline var found = false

        @inlinable init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            guard predicate(input) else { return .continue }
            found = true
            return .finish
        }

        @inlinable func takeResult() -> Bool? { found }
    }
}

extension Publishers.TryContainsWhere {
    /// The logic of `TryContainsWhere`.
    @usableFromInline
    struct Reduction: TransformingReduction, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryContainsWhere" }

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool
        @usableFromInline var found = false

        @inlinable init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            do {
                guard try predicate(input) else { return .continue }
                found = true
                return .finish
            } catch {
                thrown = error
                return .fail
            }
        }

        @inlinable func takeResult() -> Bool? { found }
    }
}

extension Publisher where Output: Equatable {
    /// Publishes whether the upstream emits `output`.
    ///
    /// - Parameter output: The value to look for.
    /// - Returns: a publisher that emits `true` as soon as a value equals `output` (cancelling the
    ///   upstream), or `false` when the upstream finishes without one, then finishes.
    @inlinable
    public func contains(_ output: Output) -> Publishers.Contains<Self> {
        Publishers.Contains(upstream: self, output: output)
    }
}

extension Publisher {
    /// Publishes whether the upstream emits a value satisfying `predicate`.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits `true` as soon as a value matches (cancelling the upstream), or
    ///   `false` when the upstream finishes without a match, then finishes.
    @inlinable
    public func contains(where predicate: @escaping (Output) -> Bool) -> Publishers.ContainsWhere<Self> {
        Publishers.ContainsWhere(upstream: self, predicate: predicate)
    }

    /// Publishes whether the upstream emits a value satisfying a throwing `predicate`.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits `true` or `false` as ``contains(where:)`` does; if `predicate`
    ///   throws, it cancels the upstream and fails with the error.
    @inlinable
    public func tryContains(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryContainsWhere<Self> {
        Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}
