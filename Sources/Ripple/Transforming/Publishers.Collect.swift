extension Publishers {
    /// A publisher that collects all the upstream's values into one array, published when the upstream
    /// finishes.
    ///
    /// It provides its own subscription (`"Collect"`), requests `.unlimited` from the upstream once the
    /// downstream has the subscription, and delivers the array then `.finished` when the upstream has
    /// finished and the downstream has requested. An upstream failure passes through (the values are
    /// discarded).
    public struct Collect<Upstream: Publisher>: Publisher {
        /// All the upstream's values, in order.
        public typealias Output = [Upstream.Output]
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are collected.
        public let upstream: Upstream

        /// Creates a publisher that collects all of `upstream`'s values.
        ///
        /// - Parameter upstream: The publisher whose values are collected.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a `"Collect"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(TransformingReduceSubscription(downstream: subscriber, reduction: Reduction()))
        }
    }
}

extension Publishers.Collect: Equatable where Upstream: Equatable {}

extension Publishers.Collect {
    /// The folding logic of `Collect`: append every value.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "Collect" }

        @usableFromInline var values: [Upstream.Output] = []

        @inlinable init() {}

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            values.append(input)
            return .continue
        }

        @inlinable mutating func takeResult() -> [Upstream.Output]? {
            defer { values = [] }
            return values
        }

        /// As in Combine: only the number of values collected so far.
        @usableFromInline
        func reflectedChildren(initial: Self, downstream: Any, status: SubscriptionLifecycle) -> [Mirror.Child] {
            [("count", values.count)]
        }
    }
}

extension Publisher {
    /// Collects all the values into an array, published when the upstream finishes.
    ///
    /// - Returns: a publisher that emits one array of every upstream value (empty if there were none) and
    ///   finishes; an upstream failure passes through.
    @inlinable
    public func collect() -> Publishers.Collect<Self> {
        Publishers.Collect(upstream: self)
    }
}
