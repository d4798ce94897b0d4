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
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream through a `"Last"` subscription.
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
        public init(upstream: Upstream, predicate: @escaping (Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"LastWhere"` subscription.
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
        public init(upstream: Upstream, predicate: @escaping (Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryLastWhere"` subscription.
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
    private struct Reduction: TransformingReduction {
        typealias Input = Upstream.Output
        typealias Output = Upstream.Output
        typealias UpstreamFailure = Upstream.Failure
        typealias Failure = Upstream.Failure

        static var name: String { "Last" }

        var latest: Output?

        mutating func reduce(_ input: Input) -> TransformingReductionStep<Failure> {
            latest = input
            return .continue
        }

        mutating func takeResult() -> Output? {
            defer { latest = nil }
            return latest
        }

        func failure(from error: Upstream.Failure) -> Failure { error }
    }
}

extension Publishers.LastWhere {
    /// The logic of `LastWhere`: remember the latest value satisfying the predicate.
    private struct Reduction: TransformingReduction {
        typealias Input = Upstream.Output
        typealias Output = Upstream.Output
        typealias UpstreamFailure = Upstream.Failure
        typealias Failure = Upstream.Failure

        static var name: String { "LastWhere" }

        let predicate: (Output) -> Bool
        var latest: Output?

        init(predicate: @escaping (Output) -> Bool) {
            self.predicate = predicate
        }

        mutating func reduce(_ input: Input) -> TransformingReductionStep<Failure> {
            if predicate(input) { latest = input }
            return .continue
        }

        mutating func takeResult() -> Output? {
            defer { latest = nil }
            return latest
        }

        func failure(from error: Upstream.Failure) -> Failure { error }
    }
}

extension Publishers.TryLastWhere {
    /// The logic of `TryLastWhere`.
    private struct Reduction: TransformingReduction {
        typealias Input = Upstream.Output
        typealias Output = Upstream.Output
        typealias UpstreamFailure = Upstream.Failure

        static var name: String { "TryLastWhere" }

        let predicate: (Output) throws -> Bool
        var latest: Output?

        init(predicate: @escaping (Output) throws -> Bool) {
            self.predicate = predicate
        }

        mutating func reduce(_ input: Input) -> TransformingReductionStep<any Error> {
            do {
                if try predicate(input) { latest = input }
                return .continue
            } catch {
                return .fail(error)
            }
        }

        mutating func takeResult() -> Output? {
            defer { latest = nil }
            return latest
        }

        func failure(from error: Upstream.Failure) -> any Error { error }
    }
}

extension Publisher {
    /// Publishes the last value when the upstream finishes.
    ///
    /// - Returns: a publisher that emits the upstream's last value (nothing if it was empty) and finishes;
    ///   an upstream failure passes through.
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }

    /// Publishes the last value satisfying `predicate` when the upstream finishes.
    ///
    /// - Returns: a publisher that emits the last matching value (nothing if none matched) and finishes.
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the last value satisfying a throwing `predicate` when the upstream finishes.
    ///
    /// - Returns: a publisher that emits the last matching value and finishes; if `predicate` throws, it
    ///   cancels the upstream and fails with the error.
    public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
        Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}
