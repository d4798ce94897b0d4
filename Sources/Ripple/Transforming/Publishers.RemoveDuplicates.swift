extension Publishers {
    /// A publisher that drops a value when a predicate says it duplicates the previous value.
    ///
    /// Each value is compared with the previous upstream value (duplicate or not); the first value is always
    /// republished. It provides its own subscription (`"RemoveDuplicates"`), passes demand through and
    /// answers a dropped value with `.max(1)`. The completion is forwarded unchanged.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose duplicates are removed.
        public let upstream: Upstream

        /// Returns `true` when its second argument (the new value) duplicates the first (the previous one).
        public let predicate: (Output, Output) -> Bool

        /// Creates a publisher that drops the values of `upstream` that `predicate` calls duplicates.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose duplicates are removed.
        ///   - predicate: Returns `true` when its second argument (the new value) duplicates the first (the previous
        ///     one).
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output, Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"RemoveDuplicates"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(
                TransformingStepSubscription(downstream: subscriber, step: Step(predicate: predicate))
            )
        }
    }

    /// A publisher that drops a value when a throwing predicate says it duplicates the previous value.
    ///
    /// As ``Publishers/RemoveDuplicates``; if the predicate throws, the upstream is cancelled and the stream
    /// fails with the error. An upstream failure is forwarded as `any Error`.
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// Fails with the upstream's error or the one the predicate throws.
        public typealias Failure = any Error

        /// The publisher whose duplicates are removed.
        public let upstream: Upstream

        /// Returns `true` when its second argument (the new value) duplicates the first (the previous one).
        public let predicate: (Output, Output) throws -> Bool

        /// Creates a publisher that drops the values of `upstream` that `predicate` calls duplicates.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose duplicates are removed.
        ///   - predicate: Returns `true` when its second argument (the new value) duplicates the first (the previous
        ///     one).
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Output, Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        /// Attaches `subscriber` to the upstream through a `"TryRemoveDuplicates"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingStepSubscription(downstream: subscriber, step: Step(predicate: predicate))
            )
        }
    }
}

extension Publishers.RemoveDuplicates {
    /// The per-value logic of `RemoveDuplicates`: remember the previous value and compare with it.
    @usableFromInline
    struct Step: TransformingStep {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline static var name: String { "RemoveDuplicates" }
        @usableFromInline static var reflectsLast: Bool { true }
        /// The previous value, as Combine's mirror shows it (`last`).
        @usableFromInline var reflectedResult: Any? { previous.map(\.value) }

        @usableFromInline let predicate: (Output, Output) -> Bool
        @usableFromInline var previous: TransformingSlot<Output>?

        @inlinable init(predicate: @escaping (Output, Output) -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
            guard let previous else {
                previous = TransformingSlot(input)
                return input
            }
            let duplicate = predicate(previous.value, input)
            previous.value = input
            if duplicate { throw .skip }
            return input
        }
    }
}

extension Publishers.TryRemoveDuplicates {
    /// The per-value logic of `TryRemoveDuplicates`.
    @usableFromInline
    struct Step: TransformingStep, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Output = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryRemoveDuplicates" }
        @usableFromInline static var reflectsLast: Bool { true }
        /// The previous value, as Combine's mirror shows it (`last`).
        @usableFromInline var reflectedResult: Any? { previous }
        @usableFromInline typealias Failure = any Error

        @usableFromInline var thrown: (any Error)?

        @usableFromInline let predicate: (Output, Output) throws -> Bool
        @usableFromInline var previous: Output?

        @inlinable init(predicate: @escaping (Output, Output) throws -> Bool) {
            self.predicate = predicate
        }

        @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
            defer { previous = input }
            let duplicate: Bool
            do {
                if let previous { duplicate = try predicate(previous, input) } else { duplicate = false }
            } catch {
                thrown = error
                throw .fail
            }
            if duplicate { throw .skip }
            return input
        }
    }
}

extension Publisher where Output: Equatable {
    /// Drops a value equal to the previous one.
    ///
    /// - Returns: a publisher that emits each value that differs from the value before it and completes as
    ///   the upstream does.
    @inlinable
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}

extension Publisher {
    /// Drops a value that `predicate` says duplicates the previous one.
    ///
    /// - Parameter predicate: called with the previous value and the new one; `true` drops the new one.
    /// - Returns: a publisher that emits the values that are not duplicates and completes as the upstream does.
    @inlinable
    public func removeDuplicates(by predicate: @escaping (Output, Output) -> Bool) -> Publishers.RemoveDuplicates<Self>
    {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }

    /// Drops a value that a throwing `predicate` says duplicates the previous one.
    ///
    /// - Parameter predicate: The condition each value is tested with; it may throw.
    /// - Returns: a publisher that emits the values that are not duplicates; if `predicate` throws, it
    ///   cancels the upstream and fails with the error.
    @inlinable
    public func tryRemoveDuplicates(
        by predicate: @escaping (Output, Output) throws -> Bool
    ) -> Publishers.TryRemoveDuplicates<Self> {
        Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}
