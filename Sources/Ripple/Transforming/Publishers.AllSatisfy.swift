extension Publishers {
    /// A publisher that publishes whether every upstream value satisfies a predicate.
    ///
    /// It provides its own subscription (`"AllSatisfy"`) and requests `.unlimited` from the upstream once
    /// the downstream has the subscription. On the first value failing the predicate it cancels the
    /// upstream and publishes `false`; if the upstream finishes first it publishes `true` (also when empty).
    /// Either way `.finished` follows, once the downstream has requested. An upstream failure passes through.
    public struct AllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every value satisfied the predicate.
        public typealias Output = Bool
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher checked.
        public let upstream: Upstream

        /// The predicate every value must satisfy.
        public let predicate: (Upstream.Output) -> Bool

        /// Creates a publisher that publishes whether every value of `upstream` satisfies `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher checked.
        ///   - predicate: the predicate every value must satisfy.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through an `"AllSatisfy"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(predicate: predicate))
            )
        }
    }

    /// A publisher that publishes whether every upstream value satisfies a throwing predicate.
    ///
    /// As ``Publishers/AllSatisfy`` (subscription `"TryAllSatisfy"`); if the predicate throws, the upstream
    /// is cancelled and the stream fails with the error. An upstream failure is forwarded as `any Error`.
    public struct TryAllSatisfy<Upstream: Publisher>: Publisher {
        /// Whether every value satisfied the predicate.
        public typealias Output = Bool
        /// Fails with the upstream's error or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher checked.
        public let upstream: Upstream

        /// The throwing predicate every value must satisfy.
        public let predicate: (Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes whether every value of `upstream` satisfies `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher checked.
        ///   - predicate: the throwing predicate every value must satisfy.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryAllSatisfy"` subscription.
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

extension Publishers.AllSatisfy {
    /// The logic of `AllSatisfy`: the first failing value decides `false`.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "AllSatisfy" }

        @usableFromInline let predicate: (Upstream.Output) -> Bool
        @usableFromInline var satisfied = true

        @inlinable init(predicate: @escaping (Upstream.Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            if predicate(input) { return .continue }
            satisfied = false
            return .finish
        }

        @inlinable func takeResult() -> Bool? { satisfied }
    }
}

extension Publishers.TryAllSatisfy {
    /// The logic of `TryAllSatisfy`.
    @usableFromInline
    struct Reduction: TransformingReduction, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryAllSatisfy" }

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let predicate: (Upstream.Output) throws -> Bool
        @usableFromInline var satisfied = true

        @inlinable init(predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            do {
                if try predicate(input) { return .continue }
                satisfied = false
                return .finish
            } catch {
                thrown = error
                return .fail
            }
        }

        @inlinable func takeResult() -> Bool? { satisfied }
    }
}

extension Publisher {
    /// Publishes whether every value satisfies `predicate`.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits `false` as soon as a value fails `predicate` (cancelling the
    ///   upstream), or `true` when the upstream finishes, then finishes.
    @inlinable
    public func allSatisfy(_ predicate: @escaping (Output) -> Bool) -> Publishers.AllSatisfy<Self> {
        Publishers.AllSatisfy(upstream: self, predicate: predicate)
    }

    /// Publishes whether every value satisfies a throwing `predicate`.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits `true` or `false` as ``allSatisfy(_:)`` does; if `predicate` throws,
    ///   it cancels the upstream and fails with the error.
    @inlinable
    public func tryAllSatisfy(_ predicate: @escaping (Output) throws -> Bool) -> Publishers.TryAllSatisfy<Self> {
        Publishers.TryAllSatisfy(upstream: self, predicate: predicate)
    }
}
