extension Publishers {
    /// A publisher that publishes the upstream's first value and finishes.
    ///
    /// It provides its own subscription (`"First"`) and requests `.unlimited` from the upstream once the
    /// downstream has the subscription. On the first value it cancels the upstream, then delivers the value
    /// and `.finished` (as soon as the downstream has requested). If the upstream finishes empty it just
    /// finishes; an upstream failure passes through.
    public struct First<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose first value is taken.
        public let upstream: Upstream

        /// Creates a publisher that publishes `upstream`'s first value.
        ///
        /// - Parameter upstream: The publisher whose first value is published.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a `"First"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(TransformingReduceSubscription(downstream: subscriber, reduction: Reduction()))
        }
    }

    /// A publisher that publishes the first upstream value a predicate accepts, and finishes.
    ///
    /// As ``Publishers/First``, for the first value satisfying `predicate`. Its subscription is described as
    /// `"TryFirst"`, as in Combine.
    public struct FirstWhere<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher searched.
        public let upstream: Upstream

        /// The predicate the published value satisfies.
        public let predicate: (Output) -> Bool

        /// Creates a publisher that publishes `upstream`'s first value satisfying `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - predicate: the predicate the published value satisfies.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryFirst"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(predicate: predicate))
            )
        }
    }

    /// A publisher that publishes the first upstream value a throwing predicate accepts, and finishes.
    ///
    /// As ``Publishers/FirstWhere`` (subscription `"TryFirstWhere"`); if the predicate throws, the upstream
    /// is cancelled and the stream fails with the error. An upstream failure is forwarded as `any Error`.
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// Fails with the upstream's error or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher searched.
        public let upstream: Upstream

        /// The throwing predicate the published value satisfies.
        public let predicate: (Output) throws -> Bool

        /// Creates a publisher that publishes `upstream`'s first value satisfying `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - predicate: the throwing predicate the published value satisfies.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryFirstWhere"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(predicate: predicate))
            )
        }
    }
}

extension Publishers.First: Equatable where Upstream: Equatable {}

extension Publishers.First {
    /// The logic of `First`: the first value decides.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "First" }

        @usableFromInline var first: Output?

        @inlinable init() {}

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            first = input
            return .finish
        }

        @inlinable mutating func takeResult() -> Output? {
            defer { first = nil }
            return first
        }
    }
}

extension Publishers.FirstWhere {
    /// The logic of `FirstWhere`: the first value satisfying the predicate decides.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "TryFirst" }

        @usableFromInline let predicate: (Output) -> Bool
        @usableFromInline var match: Output?

        @inlinable init(predicate: @escaping (Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            guard predicate(input) else { return .continue }
            match = input
            return .finish
        }

        @inlinable mutating func takeResult() -> Output? {
            defer { match = nil }
            return match
        }
    }
}

extension Publishers.TryFirstWhere {
    /// The logic of `TryFirstWhere`.
    @usableFromInline
    struct Reduction: TransformingReduction, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryFirstWhere" }

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let predicate: (Output) throws -> Bool
        @usableFromInline var match: Output?

        @inlinable init(predicate: @escaping (Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            do {
                guard try predicate(input) else { return .continue }
                match = input
                return .finish
            } catch {
                thrown = error
                return .fail
            }
        }

        @inlinable mutating func takeResult() -> Output? {
            defer { match = nil }
            return match
        }
    }
}

extension Publisher {
    /// Publishes the first value and finishes.
    ///
    /// - Returns: a publisher that emits the upstream's first value (cancelling the upstream) and finishes,
    ///   or just finishes if the upstream finishes empty; an upstream failure passes through.
    @inlinable
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }

    /// Publishes the first value satisfying `predicate` and finishes.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits the first matching value (cancelling the upstream) and finishes, or
    ///   just finishes if the upstream finishes without a match.
    @inlinable
    public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
        Publishers.FirstWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the first value satisfying a throwing `predicate` and finishes.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits the first matching value and finishes; if `predicate` throws, it
    ///   cancels the upstream and fails with the error.
    @inlinable
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
        Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}
