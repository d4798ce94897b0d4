extension Publishers {
    /// A publisher that publishes the greatest upstream value by an ordering, when the upstream finishes.
    ///
    /// A new value replaces the kept one when `areInIncreasingOrder(kept, new)` is `true` (so of equal values
    /// the first is kept). `min` operators use it with the ordering reversed. It provides its own
    /// subscription (`"Comparison"`), requests `.unlimited` from the upstream once the downstream has the
    /// subscription, and delivers the value (nothing if the upstream was empty) then `.finished` when the
    /// upstream has finished and the downstream has requested. An upstream failure passes through.
    public struct Comparison<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher compared.
        public let upstream: Upstream

        /// Returns `true` when its first argument orders before its second.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher that publishes `upstream`'s greatest value by `areInIncreasingOrder`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher compared.
        ///   - areInIncreasingOrder: Returns `true` when its first argument orders before its second.
        @inlinable
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches `subscriber` to the upstream through a `"Comparison"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(
                    downstream: subscriber,
                    reduction: Reduction(areInIncreasingOrder: areInIncreasingOrder)
                )
            )
        }
    }

    /// A publisher that publishes the greatest upstream value by a throwing ordering, when the upstream
    /// finishes.
    ///
    /// As ``Publishers/Comparison`` (subscription `"TryComparison"`); if the ordering throws, the upstream is
    /// cancelled and the stream fails with the error. An upstream failure is forwarded as `any Error`.
    public struct TryComparison<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// Fails with the upstream's error or the one the ordering throws.
        public typealias Failure = any Error

        /// The publisher compared.
        public let upstream: Upstream

        /// Returns `true` when its first argument orders before its second; may throw.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes `upstream`'s greatest value by `areInIncreasingOrder`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher compared.
        ///   - areInIncreasingOrder: Returns `true` when its first argument orders before its second; may throw.
        @inlinable
        public init(
            upstream: Upstream,
            areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool
        ) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        /// Attaches `subscriber` to the upstream through a `"TryComparison"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingReduceSubscription(
                    downstream: subscriber,
                    reduction: Reduction(areInIncreasingOrder: areInIncreasingOrder)
                )
            )
        }
    }
}

extension Publishers.Comparison {
    /// The logic of `Comparison`: keep the greatest value so far.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "Comparison" }

        @usableFromInline let areInIncreasingOrder: (Output, Output) -> Bool
        @usableFromInline var best: TransformingSlot<Output>?

        @inlinable init(areInIncreasingOrder: @escaping (Output, Output) -> Bool) {
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            guard let best else {
                best = TransformingSlot(input)
                return .continue
            }
            if areInIncreasingOrder(best.value, input) { best.value = input }
            return .continue
        }

        @inlinable mutating func takeResult() -> Output? {
            TransformingSlot.take(from: &best)
        }
    }
}

extension Publishers.TryComparison {
    /// The logic of `TryComparison`.
    @usableFromInline
    struct Reduction: TransformingReduction, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryComparison" }

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let areInIncreasingOrder: (Output, Output) throws -> Bool
        @usableFromInline var best: TransformingSlot<Output>?

        @inlinable init(areInIncreasingOrder: @escaping (Output, Output) throws -> Bool) {
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            do {
                guard let best else {
                    best = TransformingSlot(input)
                    return .continue
                }
                if try areInIncreasingOrder(best.value, input) { best.value = input }
                return .continue
            } catch {
                thrown = error
                return .fail
            }
        }

        @inlinable mutating func takeResult() -> Output? {
            TransformingSlot.take(from: &best)
        }
    }
}

extension Publisher where Output: Comparable {
    /// Publishes the smallest value when the upstream finishes.
    ///
    /// - Returns: a publisher that emits the minimum (the first of equal minima; nothing if the upstream was
    ///   empty) and finishes; an upstream failure passes through.
    @inlinable
    public func min() -> Publishers.Comparison<Self> {
        max(by: >)
    }

    /// Publishes the greatest value when the upstream finishes.
    ///
    /// - Returns: a publisher that emits the maximum (the first of equal maxima; nothing if the upstream was
    ///   empty) and finishes; an upstream failure passes through.
    @inlinable
    public func max() -> Publishers.Comparison<Self> {
        max(by: <)
    }
}

extension Publisher {
    /// Publishes the smallest value by `areInIncreasingOrder` when the upstream finishes.
    ///
    /// - Parameter areInIncreasingOrder: Whether its first argument orders before its second.
    /// - Returns: a publisher that emits the minimum (nothing if the upstream was empty) and finishes.
    @inlinable
    public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        max { areInIncreasingOrder($1, $0) }
    }

    /// Publishes the smallest value by a throwing `areInIncreasingOrder` when the upstream finishes.
    ///
    /// - Parameter areInIncreasingOrder: Whether its first argument orders before its second; it may throw.
    /// - Returns: a publisher that emits the minimum and finishes; if the ordering throws, it cancels the
    ///   upstream and fails with the error.
    @inlinable
    public func tryMin(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryComparison<Self>
    {
        tryMax { try areInIncreasingOrder($1, $0) }
    }

    /// Publishes the greatest value by `areInIncreasingOrder` when the upstream finishes.
    ///
    /// - Parameter areInIncreasingOrder: Whether its first argument orders before its second.
    /// - Returns: a publisher that emits the maximum (nothing if the upstream was empty) and finishes.
    @inlinable
    public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }

    /// Publishes the greatest value by a throwing `areInIncreasingOrder` when the upstream finishes.
    ///
    /// - Parameter areInIncreasingOrder: Whether its first argument orders before its second; it may throw.
    /// - Returns: a publisher that emits the maximum and finishes; if the ordering throws, it cancels the
    ///   upstream and fails with the error.
    @inlinable
    public func tryMax(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool)
        -> Publishers.TryComparison<Self>
    {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }
}
