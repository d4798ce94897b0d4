extension Publishers {
    /// A publisher that omits a fixed number of values at the start of its upstream, then republishes the
    /// rest.
    ///
    /// As in Combine, the subscription reaches the downstream before the upstream is subscribed to, and
    /// the values to be dropped are requested from the upstream up front, in addition to whatever the
    /// downstream requests. Completion and failure pass through unchanged.
    public struct Drop<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are dropped and republished.
        public let upstream: Upstream

        /// How many values to drop before republishing. Must not be negative (that traps on subscription,
        /// as in Combine).
        public let count: Int

        /// Creates a publisher that drops the first `count` values of `upstream`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are dropped and republished.
        ///   - count: how many values to drop before republishing.
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        /// Sends `subscriber` its subscription, then subscribes to the upstream.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let inner = Inner(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.subscribe(inner)
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {}

extension Publishers.Drop {
    /// The subscriber to the upstream and the subscription of the downstream.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private let downstream: Downstream
        private let lock = Lock()
        private nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
        /// Demand requested by the downstream before the upstream subscription arrived.
        private nonisolated(unsafe) var pendingDemand = Subscribers.Demand.none
        /// Values still to be dropped.
        private nonisolated(unsafe) var remaining: Int

        init(downstream: Downstream, count: Int) {
            precondition(count >= 0, "dropFirst: count must not be negative")
            self.downstream = downstream
            remaining = count
        }

        var description: String { "Drop" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let initialDemand: Subscribers.Demand? = lock.withLock {
                guard state.accept(subscription) else { return nil }
                return pendingDemand + remaining
            }
            guard let initialDemand else {
                subscription.cancel()
                return
            }
            if initialDemand != .none {
                subscription.request(initialDemand)
            }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            // As in Combine, a value before the upstream's subscription counts (the downstream already has
            // its subscription); none does after the end.
            let forward = lock.withLock { () -> Bool in
                guard !state.isTerminal else { return false }
                if remaining > 0 {
                    remaining -= 1
                    return false
                }
                return true
            }
            return forward ? downstream.receive(input) : .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let forward = lock.withLock { state.complete() }
            if forward {
                downstream.receive(completion: completion)
            }
        }

        func request(_ demand: Subscribers.Demand) {
            APIViolation.checkDemand(demand)
            let upstream: (any Subscription)? = lock.withLock {
                if state.isAwaitingSubscription { pendingDemand += demand }
                return state.subscription
            }
            upstream?.request(demand)
        }

        func cancel() {
            let upstream = lock.withLock { state.cancel() }
            upstream?.cancel()
        }
    }
}

extension Publisher {
    /// Omits the first `count` values (one by default) and republishes the rest.
    ///
    /// - Parameter count: how many values to drop; must not be negative.
    /// - Returns: a publisher that emits the upstream's values after the first `count`, and completes or
    ///   fails when the upstream does.
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}
