extension Publishers {
    /// A publisher that publishes the upstream's last value when the upstream finishes.
    ///
    /// It provides its own subscription (`"Last"`), requests `.unlimited` from the upstream once the
    /// downstream has the subscription, and delivers the last value (if any) then `.finished` when the
    /// upstream has finished and the downstream has requested. An upstream failure passes through.
    public struct Last<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose last value is taken.
        public let upstream: Upstream

        /// Creates a publisher that publishes `upstream`'s last value.
        ///
        /// - Parameter upstream: The publisher whose last value is published.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a `"Last"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction())
            )
        }
    }

    /// A publisher that publishes the last upstream value a predicate accepts, when the upstream finishes.
    ///
    /// As ``Publishers/Last`` (subscription `"LastWhere"`), for the last value satisfying `predicate`.
    public struct LastWhere<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher searched.
        public let upstream: Upstream

        /// The predicate the published value satisfies.
        public let predicate: (Output) -> Bool

        /// Creates a publisher that publishes `upstream`'s last value satisfying `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - predicate: the predicate the published value satisfies.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"LastWhere"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TransformingReduceSubscription(downstream: subscriber, reduction: Reduction(predicate: predicate))
            )
        }
    }

    /// A publisher that publishes the last upstream value a throwing predicate accepts, when the upstream
    /// finishes.
    ///
    /// As ``Publishers/LastWhere`` (subscription `"TryLastWhere"`); if the predicate throws, the upstream is
    /// cancelled and the stream fails with the error. An upstream failure is forwarded as `any Error`.
    public struct TryLastWhere<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// Fails with the upstream's error or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher searched.
        public let upstream: Upstream

        /// The throwing predicate the published value satisfies.
        public let predicate: (Output) throws -> Bool

        /// Creates a publisher that publishes `upstream`'s last value satisfying `predicate`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher searched.
        ///   - predicate: the throwing predicate the published value satisfies.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryLastWhere"` subscription.
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

extension Publishers.Last: Equatable where Upstream: Equatable {}

extension Publishers.Last {
    /// The logic of `Last`: remember the latest value.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "Last" }

        @usableFromInline var latest: TransformingSlot<Output>?

        @inlinable init() {}

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            TransformingSlot.keep(input, in: &latest)
            return .continue
        }

        @inlinable mutating func takeResult() -> Output? {
            TransformingSlot.take(from: &latest)
        }
    }
}

extension Publishers.LastWhere {
    /// The logic of `LastWhere`: remember the latest value satisfying the predicate.
    @usableFromInline
    struct Reduction: TransformingReduction {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "LastWhere" }

        @usableFromInline let predicate: (Output) -> Bool
        @usableFromInline var latest: TransformingSlot<Output>?

        @inlinable init(predicate: @escaping (Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            if predicate(input) { TransformingSlot.keep(input, in: &latest) }
            return .continue
        }

        @inlinable mutating func takeResult() -> Output? {
            TransformingSlot.take(from: &latest)
        }
    }
}

extension Publishers.TryLastWhere {
    /// The logic of `TryLastWhere`.
    @usableFromInline
    struct Reduction: TransformingReduction, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryLastWhere" }

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let predicate: (Output) throws -> Bool
        @usableFromInline var latest: TransformingSlot<Output>?

        @inlinable init(predicate: @escaping (Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func reduce(_ input: Input) -> TransformingReductionStep {
            do {
                if try predicate(input) { TransformingSlot.keep(input, in: &latest) }
                return .continue
            } catch {
                thrown = error
                return .fail
            }
        }

        @inlinable mutating func takeResult() -> Output? {
            TransformingSlot.take(from: &latest)
        }
    }
}

extension Publisher {
    /// Publishes the last value when the upstream finishes.
    ///
    /// - Returns: a publisher that emits the upstream's last value (nothing if it was empty) and finishes;
    ///   an upstream failure passes through.
    @inlinable
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }

    /// Publishes the last value satisfying `predicate` when the upstream finishes.
    ///
    /// - Parameter predicate: The condition each value is tested with.
    /// - Returns: a publisher that emits the last matching value (nothing if none matched) and finishes.
    @inlinable
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the last value satisfying a throwing `predicate` when the upstream finishes.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits the last matching value and finishes; if `predicate` throws, it
    ///   cancels the upstream and fails with the error.
    @inlinable
    public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
        Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}
