extension Publishers {
    /// A publisher that publishes every intermediate result of folding the upstream's values.
    ///
    /// For each upstream value it computes `nextPartialResult(result, value)`, stores it and delivers it.
    /// It passes the upstream's subscription through and forwards the completion unchanged.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are folded.
        public let upstream: Upstream

        /// The result the fold starts from (not itself published).
        public let initialResult: Output

        /// Combines the previous result with a new value.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a publisher that publishes the running fold of `upstream`'s values from `initialResult`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are folded.
        ///   - initialResult: the result the fold starts from (not itself published).
        ///   - nextPartialResult: Combines the previous result with a new value.
        @inlinable
        public init(
            upstream: Upstream,
            initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber` to the upstream through a folding subscriber with its own running result.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, result: initialResult, next: nextPartialResult))
        }
    }

    /// A publisher that publishes every intermediate result of folding the upstream's values with a
    /// throwing closure.
    ///
    /// It provides its own subscription (`"TryScan"`) and passes demand through. If the closure throws, the
    /// upstream is cancelled and the stream fails with the error; an upstream failure is forwarded as
    /// `any Error`.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        /// Fails with the upstream's error or the one the closure throws.
        public typealias Failure = any Error

        /// The publisher whose values are folded.
        public let upstream: Upstream

        /// The result the fold starts from (not itself published).
        public let initialResult: Output

        /// Combines the previous result with a new value; may throw.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a publisher that publishes the running fold of `upstream`'s values from `initialResult`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are folded.
        ///   - initialResult: the result the fold starts from (not itself published).
        ///   - nextPartialResult: Combines the previous result with a new value; may throw.
        @inlinable
        public init(
            upstream: Upstream,
            initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        /// Attaches `subscriber` to the upstream through a `"TryScan"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == any Error {
            upstream.subscribe(
                TransformingStepSubscription(
                    downstream: subscriber,
                    step: Step(result: initialResult, next: nextPartialResult)
                )
            )
        }
    }
}

extension Publishers.Scan {
    /// The subscriber `Scan` attaches upstream: it keeps the running result and hands the upstream
    /// subscription straight to the downstream. The result is touched only from the upstream's serialised
    /// `receive(_:)`.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let downstream: Downstream
        @usableFromInline let next: (Output, Upstream.Output) -> Output
        /// Touched only from the upstream's serialised signals (the contract serialises them), so the dynamic
        /// exclusivity check is skipped.
        @exclusivity(unchecked) @usableFromInline var result: Output

        @inlinable init(downstream: Downstream, result: Output, next: @escaping (Output, Upstream.Output) -> Output) {
            self.downstream = downstream
            self.result = result
            self.next = next
        }

        @usableFromInline var description: String { "Scan" }
        @usableFromInline var customMirror: Mirror {
            Mirror(self, children: [("downstream", downstream), ("result", result)] as [Mirror.Child])
        }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            let value = next(result, input)
            result = value
            return downstream.receive(value)
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }
    }
}

extension Publishers.TryScan {
    /// The per-value logic of `TryScan`: fold, store and emit the running result.
    @usableFromInline
    struct Step: TransformingStep, TransformingThrowingLogic {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias UpstreamFailure = Upstream.Failure

        @usableFromInline static var name: String { "TryScan" }
        @usableFromInline static var shape: TransformingStepShape { .scan }
        @usableFromInline var reflectedResult: Any? { result }
        @usableFromInline typealias Failure = any Error

        @usableFromInline var thrown: (any Error)?

        @usableFromInline var result: Output
        @usableFromInline let next: (Output, Upstream.Output) throws -> Output

        @inlinable init(result: Output, next: @escaping (Output, Upstream.Output) throws -> Output) {
            self.result = result
            self.next = next
        }

        @inlinable mutating func step(_ input: Input) throws(TransformingStepInterruption) -> Output {
            do {
                result = try next(result, input)
            } catch {
                thrown = error
                throw .fail
            }
            return result
        }
    }
}

extension Publisher {
    /// Publishes every intermediate result of folding the values, starting from `initialResult`.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result.
    /// - Returns: a publisher that emits `nextPartialResult(previousResult, value)` for each upstream value
    ///   and completes as the upstream does.
    @inlinable
    public func scan<T>(_ initialResult: T, _ nextPartialResult: @escaping (T, Output) -> T) -> Publishers.Scan<Self, T>
    {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Publishes every intermediate result of folding the values with a throwing closure.
    ///
    /// - Parameters:
    ///   - initialResult: The result before any value.
    ///   - nextPartialResult: Combines the result so far with the next value into the next result; it may throw.
    /// - Returns: a publisher that emits each running result; if the closure throws, it cancels the
    ///   upstream and fails with the error.
    @inlinable
    public func tryScan<T>(
        _ initialResult: T,
        _ nextPartialResult: @escaping (T, Output) throws -> T
    ) -> Publishers.TryScan<Self, T> {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}
