import Synchronization

extension Publishers {
    /// A publisher that groups the upstream's values into arrays of `count` values.
    ///
    /// It provides its own subscription (`"CollectByCount"`). A downstream request for `n` arrays becomes a
    /// request for `n * count` values upstream, and the extra demand the downstream answers an array with is
    /// multiplied by `count` the same way. When the upstream finishes, a last, shorter array holding the
    /// remaining values (if any) is delivered before `.finished`; on a failure the remaining values are
    /// discarded and the failure passes through. A `count` below 1 behaves as 1.
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        /// Groups of the upstream's values.
        public typealias Output = [Upstream.Output]
        /// The upstream's failure type.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are grouped.
        public let upstream: Upstream

        /// How many values each array holds (the last may hold fewer).
        public let count: Int

        /// Creates a publisher that groups `upstream`'s values into arrays of `count`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are grouped.
        ///   - count: how many values each array holds (the last may hold fewer).
        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Attaches `subscriber` to the upstream through a `"CollectByCount"` subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(downstream: subscriber, count: Swift.max(count, 1)))
        }
    }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {}

extension Publishers.CollectByCount {
    /// The subscriber/subscription of `CollectByCount`.
    @usableFromInline
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @inlinable static var awaitingSubscription: UInt8 { 0 }
        @inlinable static var active: UInt8 { 1 }
        @inlinable static var terminal: UInt8 { 2 }
        /// Terminal because the downstream cancelled.
        @inlinable static var cancelled: UInt8 { 3 }

        @usableFromInline let downstream: Downstream
        @usableFromInline let count: Int
        /// Touched only from the upstream's serialised signals (the contract serialises them), so the dynamic
        /// exclusivity check is skipped.
        @exclusivity(unchecked) @usableFromInline var buffer: [Upstream.Output] = []
        @usableFromInline let lock = Lock()
        @usableFromInline nonisolated(unsafe) var upstream: (any Subscription)?
        /// The phase (awaiting subscription, active, terminal, cancelled); written only under `lock`, read
        /// without it on the value path.
        /// Not a ``SubscriptionLifecycle``: the lock-free value path needs an atomic byte, which an enum is not.
        @usableFromInline let phase = Atomic<UInt8>(0)

        @inlinable init(downstream: Downstream, count: Int) {
            self.downstream = downstream
            self.count = count
        }

        @usableFromInline var description: String { "CollectByCount" }
        /// As Combine's: the downstream, the upstream subscription, the values collected so far and the
        /// count.
        @usableFromInline var customMirror: Mirror {
            let upstream = lock.withLock { self.upstream }
            let children: [Mirror.Child] = [
                ("downstream", downstream), ("upstreamSubscription", upstream as Any), ("buffer", buffer),
                ("count", count),
            ]
            return Mirror(self, children: children)
        }
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
            guard phase.load(ordering: .acquiring) == Self.active else { return .none }
            buffer.append(input)
            guard buffer.count >= count else { return .none }
            let group = buffer
            buffer = []
            return downstream.receive(group) * count
        }

        /// As in Combine, a completion that comes before the upstream's subscription is passed on (and a
        /// subscription arriving later is cancelled).
        @inlinable func receive(completion: Subscribers.Completion<Failure>) {
            let ended = lock.withLock { () -> Bool in
                let current = phase.load(ordering: .relaxed)
                guard current == Self.active || current == Self.awaitingSubscription else { return false }
                upstream = nil
                phase.store(Self.terminal, ordering: .releasing)
                return true
            }
            let remaining = buffer
            buffer = []
            guard ended else { return }
            if case .finished = completion, !remaining.isEmpty {
                _ = downstream.receive(remaining)
                // A cancel from inside that delivery suppresses the completion.
                if phase.load(ordering: .acquiring) == Self.cancelled { return }
            }
            downstream.receive(completion: completion)
        }

        @inlinable func request(_ demand: Subscribers.Demand) {
            APIViolation.checkDemand(demand)
            let subscription = lock.withLock { upstream }
            subscription?.request(demand * count)
        }

        /// A cancel before the upstream's subscription is forgotten, as in Combine; no downstream reaches that
        /// case, because this subscription goes downstream only after the upstream's has arrived.
        @inlinable func cancel() {
            let subscription = lock.withLock { () -> (any Subscription)? in
                if phase.load(ordering: .relaxed) == Self.awaitingSubscription { return nil }
                let subscription = upstream
                upstream = nil
                phase.store(Self.cancelled, ordering: .releasing)
                return subscription
            }
            subscription?.cancel()
        }
    }
}

extension Publisher {
    /// Groups the values into arrays of `count`.
    ///
    /// - Parameter count: How many values go into each array (the last may hold fewer).
    /// - Returns: a publisher that emits an array each time `count` values have arrived, then, when the
    ///   upstream finishes, an array of the remaining values (if any) and `.finished`. A failure discards
    ///   the remaining values and passes through. Demand is counted in arrays: requesting `n` asks the
    ///   upstream for `n * count` values.
    @inlinable
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}
