extension Publishers {
    /// A publisher that counts the upstream's values and publishes the count when the upstream finishes.
    ///
    /// It provides its own subscription (`"Count"`), requests `.unlimited` from the upstream once the
    /// downstream has the subscription, and delivers the count then `.finished` when the upstream has
    /// finished and the downstream has requested. An upstream failure passes through.
    public struct Count<Upstream: Publisher>: Publisher {
        /// The number of values.
        public typealias Output = Int
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are counted.
        public let upstream: Upstream

        /// Creates a publisher that counts `upstream`'s values.
        ///
        /// - Parameter upstream: The publisher whose values are counted.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a `"Count"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Failure {
            upstream.subscribe(TransformingReduceSubscription(downstream: subscriber, reduction: Reduction()))
        }
    }
}

extension Publishers.Count: Equatable where Upstream: Equatable {}

extension Publishers.Count {
    /// The folding logic of `Count`.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "Count" }

        @usableFromInline var count = 0

        @inlinable init() {}

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            count &+= 1
            return .continue
        }

        @inlinable func takeResult() -> Int? { count }
    }
}

extension Publisher {
    /// Counts the values.
    ///
    /// - Returns: a publisher that emits the number of upstream values when the upstream finishes, then
    ///   finishes; an upstream failure passes through.
    @inlinable
    public func count() -> Publishers.Count<Self> {
        Publishers.Count(upstream: self)
    }
}
