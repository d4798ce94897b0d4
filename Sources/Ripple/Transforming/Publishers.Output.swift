import Synchronization

extension Publishers {
    /// A publisher that republishes only the upstream values whose position falls in a range.
    ///
    /// Positions count from 0. Values before the range are dropped and answered with `.max(1)`; values in it
    /// pass through. As in Combine, the first value after the range cancels the upstream and finishes the
    /// stream. It provides its own subscription (`"Output"`), forwards demand unchanged, and passes the
    /// upstream's completion through.
    public struct Output<Upstream: Publisher>: Publisher {
        /// The upstream's value type.
        public typealias Output = Upstream.Output
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are selected.
        public let upstream: Upstream

        /// The positions republished.
        public let range: CountableRange<Int>

        /// Creates a publisher that republishes the values of `upstream` at the positions in `range`.
        ///
        /// Both bounds must be non-negative (a negative bound traps, as in Combine).
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are selected.
        ///   - range: the positions republished.
        @inlinable
        public init(upstream: Upstream, range: CountableRange<Int>) {
            precondition(range.lowerBound >= 0, "lowerBound must not be negative")
            precondition(range.upperBound >= 0, "upperBound must not be negative")
            self.upstream = upstream
            self.range = range
        }

        /// Attaches `subscriber` to the upstream through an `"Output"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, range: range))
        }
    }
}

extension Publishers.Output: Equatable where Upstream: Equatable {}

extension Publishers.Output {
    /// The subscriber/subscription of `Output`.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @inlinable static var awaitingSubscription: UInt8 { 0 }
        @inlinable static var active: UInt8 { 1 }
        @inlinable static var terminal: UInt8 { 2 }

        @usableFromInline let downstream: Downstream
        /// Touched only from the upstream's serialised signals (the contract serialises them), so the dynamic
        /// exclusivity check is skipped.
        @exclusivity(unchecked) @usableFromInline var remainingBeforeStart: Int
        /// Touched only from the upstream's serialised signals (the contract serialises them), so the dynamic
        /// exclusivity check is skipped.
        @exclusivity(unchecked) @usableFromInline var remainingInRange: Int
        @usableFromInline let lock = Lock()
        @usableFromInline nonisolated(unsafe) var upstream: (any Subscription)?
        /// Written only under `lock`, read without it on the value path.
        /// Not a ``SubscriptionLifecycle``: the lock-free value path needs an atomic byte, which an enum is not.
        @usableFromInline let phase = Atomic<UInt8>(0)

        @inlinable init(downstream: Downstream, range: CountableRange<Int>) {
            self.downstream = downstream
            remainingBeforeStart = range.lowerBound
            remainingInRange = range.count
        }

        @usableFromInline var description: String { "Output" }
        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
        @usableFromInline var playgroundDescription: Any { description }

        @inlinable func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard phase.load(ordering: .relaxed) == Self.awaitingSubscription else { return false }
                upstream = subscription
                phase.store(Self.active, ordering: .releasing)
                return true
            }
            guard accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        @inlinable func receive(_ input: Input) -> Subscribers.Demand {
            // As in Combine, a value before the subscription counts and, in the range, passes on; none does
            // after the end.
            guard phase.load(ordering: .acquiring) != Self.terminal else { return .none }
            if remainingBeforeStart > 0 {
                remainingBeforeStart -= 1
                return .max(1)
            }
            if remainingInRange > 0 {
                remainingInRange -= 1
                return downstream.receive(input)
            }
            finishAfterRange()
            return .none
        }

        /// Cancels the upstream and finishes, on the first value after the range. Kept out of `receive(_:)`
        /// so that the value path of unspecialised code does not look up the metadata this path needs.
        @inline(never) @usableFromInline func finishAfterRange() {
            guard let subscription = terminate() else { return }
            subscription.cancel()
            downstream.receive(completion: .finished)
        }

        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            guard terminate() != nil else { return }
            downstream.receive(completion: completion)
        }

        @inlinable func request(_ demand: Subscribers.Demand) {
            let subscription = lock.withLock { upstream }
            subscription?.request(demand)
        }

        @inlinable func cancel() {
            // As in Combine, a cancel before the upstream's subscription is forgotten: the downstream gets
            // this subscription only after the upstream's, so a downstream that follows the contract cannot
            // send it.
            terminate()?.cancel()
        }

        /// Moves from active to terminal; returns the upstream subscription if this call made the move.
        @inlinable func terminate() -> (any Subscription)? {
            lock.withLock {
                guard phase.load(ordering: .relaxed) == Self.active else { return nil }
                let subscription = upstream
                upstream = nil
                phase.store(Self.terminal, ordering: .releasing)
                return subscription
            }
        }
    }
}

extension Publisher {
    /// Republishes only the value at position `index` (counting from 0).
    ///
    /// - Parameter index: The position of the value, counting from 0.
    /// - Returns: a publisher that emits the value at `index`, then finishes when the next value arrives
    ///   (cancelling the upstream) or when the upstream completes.
    @inlinable
    public func output(at index: Int) -> Publishers.Output<Self> {
        output(in: index...index)
    }

    /// Republishes only the values whose positions (counting from 0) fall in `range`.
    ///
    /// - Parameter range: The positions of the values, counting from 0.
    /// - Returns: a publisher that emits the values in `range`, then finishes when the first value after it
    ///   arrives (cancelling the upstream) or when the upstream completes.
    @inlinable
    public func output<R: RangeExpression>(in range: R) -> Publishers.Output<Self> where R.Bound == Int {
        Publishers.Output(upstream: self, range: range.relative(to: 0 ..< .max))
    }

    /// Republishes at most the first `maxLength` values. `maxLength` must not be negative (that traps, as
    /// in Combine).
    ///
    /// - Parameter maxLength: The most values to republish; not negative.
    /// - Returns: a publisher that emits the first `maxLength` values, then finishes — as Combine's
    ///   `prefix(_:)`, when the next value arrives (cancelling the upstream) or when the upstream completes.
    @inlinable
    public func prefix(_ maxLength: Int) -> Publishers.Output<Self> {
        precondition(maxLength >= 0, "prefix(_:) needs a length of zero or more")
        return output(in: 0..<maxLength)
    }
}
