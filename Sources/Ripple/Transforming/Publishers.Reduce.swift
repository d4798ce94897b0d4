extension Publishers {
    /// A publisher that folds all the upstream's values into one result, published when the upstream
    /// finishes.
    ///
    /// It provides its own subscription (`"Reduce"`), requests `.unlimited` from the upstream once the
    /// downstream has the subscription, and delivers the result then `.finished` when the upstream has
    /// finished and the downstream has requested. An upstream failure passes through.
    public struct Reduce<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are folded.
        public let upstream: Upstream

        /// The result the fold starts from; published as is if the upstream finishes empty.
        public let initial: Output

        /// Combines the running result with a new value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a publisher that folds `upstream`'s values into one result, starting from `initial`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are folded.
        ///   - initial: the result the fold starts from; published as is if the upstream finishes empty.
        ///   - nextPartialResult: Combines the running result with a new value.
        @inlinable
        public init(
            upstream: Upstream, initial: Output, nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber` to the upstream through a `"Reduce"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(
                    downstream: subscriber,
                    reduction: Reduction(result: initial, next: nextPartialResult)
                )
            )
        }
    }

    /// A publisher that folds all the upstream's values into one result with a throwing closure.
    ///
    /// As ``Publishers/Reduce`` (subscription `"TryReduce"`); if the closure throws, the upstream is
    /// cancelled and the stream fails with the error. An upstream failure is forwarded as `any Error`.
    public struct TryReduce<Upstream: Publisher, Output>: Publisher {
        /// Fails with the upstream's error or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher whose values are folded.
        public let upstream: Upstream

        /// The result the fold starts from; published as is if the upstream finishes empty.
        public let initial: Output

        /// Combines the running result with a new value; may throw.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a publisher that folds `upstream`'s values into one result, starting from `initial`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are folded.
        ///   - initial: the result the fold starts from; published as is if the upstream finishes empty.
        ///   - nextPartialResult: Combines the running result with a new value; may throw.
        @inlinable
        public init(
            upstream: Upstream,
            initial: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initial = initial
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber` to the upstream through a `"TryReduce"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingReduceSubscription(
                    downstream: subscriber,
                    reduction: Reduction(result: initial, next: nextPartialResult)
                )
            )
        }
    }
}

extension Publishers.Reduce {
    /// The folding logic of `Reduce`.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "Reduce" }

        @usableFromInline var result: Output
        @usableFromInline let next: (Output, Upstream.Output) -> Output

        @inlinable init(result: Output, next: @escaping (Output, Upstream.Output) -> Output) {
            self.result = result
            self.next = next
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            result = next(result, input)
            return .continue
        }

        @inlinable func takeResult() -> Output? { result }
    }
}

extension Publishers.TryReduce {
    /// The folding logic of `TryReduce`.
    @usableFromInline
    struct Reduction: TransformingReduction, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryReduce" }

        @usableFromInline var thrown: (any Error)?

        @usableFromInline var result: Output
        @usableFromInline let next: (Output, Upstream.Output) throws -> Output

        @inlinable init(result: Output, next: @escaping (Output, Upstream.Output) throws -> Output) {
            self.result = result
            self.next = next
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            do {
                result = try next(result, input)
                return .continue
            } catch {
                thrown = error
                return .fail
            }
        }

        @inlinable func takeResult() -> Output? { result }
    }
}

extension Publisher {
    /// Folds all the values into one result, published when the upstream finishes.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result.
    /// - Returns: a publisher that emits the final `nextPartialResult` fold (or `initialResult` if the
    ///   upstream is empty) and finishes; an upstream failure passes through.
    @inlinable
    public func reduce<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T)
        -> Publishers.Reduce<Self, T>
    {
        Publishers.Reduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Folds all the values into one result with a throwing closure.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result; it may throw.
    /// - Returns: a publisher that emits the final fold and finishes; if the closure throws, it cancels the
    ///   upstream and fails with the error.
    @inlinable
    public func tryReduce<T>(
        _ initialResult: T,
        _ nextPartialResult: @escaping (T, Output) throws -> T
    ) -> Publishers.TryReduce<Self, T> {
        Publishers.TryReduce(upstream: self, initial: initialResult, nextPartialResult: nextPartialResult)
    }
}
