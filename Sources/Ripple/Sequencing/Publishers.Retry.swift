extension Publishers {
    /// A publisher that subscribes to its upstream again when it fails, up to a number of times.
    ///
    /// Values of every attempt are republished. When the upstream fails and attempts remain, the failure
    /// is swallowed and the upstream is subscribed to again, with the demand the downstream has left;
    /// otherwise the failure is passed on. Finishing passes through. The downstream sees one subscription
    /// throughout.
    public struct Retry<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher to subscribe to, again after each failure.
        public let upstream: Upstream
        /// How many times to subscribe again after failures; `nil` (or a negative count) for no limit.
        public let retries: Int?

        /// Creates a publisher that subscribes to `upstream` again after up to `retries` failures (without
        /// limit when `retries` is `nil`).
        ///
        /// - Parameters:
        ///   - upstream: The publisher to subscribe to, again after a failure.
        ///   - retries: How many failures to retry after; `nil` for no limit.
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        /// Subscribes `subscriber` to the upstream through a retrying subscription.
        ///
        /// - Parameter subscriber: The subscriber to attach.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            upstream.subscribe(Inner(upstream: upstream, retries: retries, downstream: subscriber))
        }
    }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {}

extension Publishers.Retry {
    /// The subscriber to each attempt and the subscription of the downstream.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        /// What to do with a completion of an attempt.
        private enum CompletionStep {
            case ignore
            case forward
            case resubscribe
        }

        private let lock = Lock()
        /// Until the stream ends, to subscribe to again: as in Combine, an ended retry keeps nothing of its
        /// upstream (a publisher that keeps its subscribers would otherwise keep this inner forever).
        private nonisolated(unsafe) var upstream: Upstream?
        /// Until the stream ends: as in Combine, a subscriber that keeps its subscription does not keep
        /// itself alive through it.
        private nonisolated(unsafe) var downstream: Downstream?
        /// The current attempt's subscription: awaited (again after each failure that is retried), held, then
        /// terminal once the stream has ended (completed downstream or cancelled).
        private nonisolated(unsafe) var lifecycle = SubscriptionLifecycle.awaitingSubscription
        /// Retries left; `nil` (or negative) for no limit.
        private nonisolated(unsafe) var remaining: Int?
        private nonisolated(unsafe) var downstreamNeedsSubscription = true
        /// What the downstream asked for and has not received yet.
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        /// A resubscription loop is running further up the stack.
        private nonisolated(unsafe) var resubscribing = false
        /// An attempt failed synchronously inside the resubscription loop: subscribe again.
        private nonisolated(unsafe) var needsResubscribe = false

        init(upstream: Upstream, retries: Int?, downstream: Downstream) {
            self.upstream = upstream
            self.downstream = downstream
            remaining = retries
        }

        var description: String { "Retry" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted: (pending: Subscribers.Demand, sendDownstream: Downstream?)? = lock.withLock {
                guard lifecycle.accept(subscription) else { return nil }
                let sendDownstream = downstreamNeedsSubscription ? downstream : nil
                downstreamNeedsSubscription = false
                return (demand, sendDownstream)
            }
            guard let accepted else {
                subscription.cancel()
                return
            }
            if let downstream = accepted.sendDownstream {
                downstream.receive(subscription: self)
            }
            if accepted.pending != .none {
                subscription.request(accepted.pending)
            }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let live = lock.withLock { () -> Downstream? in
                guard !lifecycle.isTerminal else { return nil }
                // As in Combine: a value nobody asked for (also one before the subscription) traps.
                if demand == .none { APIViolation.unrequestedValue() }
                demand -= 1
                return downstream
            }
            guard let live else { return .none }
            let more = live.receive(input)
            guard more != .none else { return .none }
            let current: (any Subscription)? = lock.withLock {
                guard !lifecycle.isTerminal else { return nil }
                demand += more
                return lifecycle.subscription
            }
            current?.request(more)
            return .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            var ended: Downstream?
            var releasedUpstream: Upstream?
            defer { withExtendedLifetime(releasedUpstream) {} }
            let next = lock.withLock { () -> CompletionStep in
                guard !lifecycle.isTerminal else { return .ignore }
                if case .failure = completion, mayRetry() {
                    lifecycle = .awaitingSubscription
                    if resubscribing {
                        needsResubscribe = true
                        return .ignore
                    }
                    resubscribing = true
                    return .resubscribe
                }
                lifecycle = .terminal
                ended = downstream
                downstream = nil
                releasedUpstream = upstream
                upstream = nil
                return .forward
            }
            switch next {
            case .ignore:
                return
            case .forward:
                ended?.receive(completion: completion)
            case .resubscribe:
                // Attempts that fail synchronously while subscribing set `needsResubscribe` instead of
                // recursing; this loop subscribes again for them.
                var again = true
                while again {
                    lock.withLock { upstream }?.subscribe(self)
                    again = lock.withLock {
                        let again = needsResubscribe && !lifecycle.isTerminal
                        needsResubscribe = false
                        if !again { resubscribing = false }
                        return again
                    }
                }
            }
        }

        func request(_ demand: Subscribers.Demand) {
            let current: (any Subscription)? = lock.withLock {
                guard !lifecycle.isTerminal else { return nil }
                self.demand += demand
                return lifecycle.subscription
            }
            current?.request(demand)
        }

        func cancel() {
            let (current, released) = lock.withLock { () -> ((any Subscription)?, (Downstream?, Upstream?)) in
                guard !lifecycle.isTerminal else { return (nil, (nil, nil)) }
                let current = lifecycle.cancel()
                let released = (downstream, upstream)
                downstream = nil
                upstream = nil
                return (current, released)
            }
            withExtendedLifetime(released) { current?.cancel() }
        }

        /// Whether another attempt is allowed, counting it; called with the lock held.
        private func mayRetry() -> Bool {
            guard let left = remaining, left >= 0 else { return true }
            guard left > 0 else { return false }
            remaining = left - 1
            return true
        }
    }
}

extension Publisher {
    /// Subscribes to this publisher again, up to `retries` times, when it fails.
    ///
    /// - Parameter retries: how many times to subscribe again after failures.
    /// - Returns: a publisher that emits the values of every attempt, finishes when an attempt finishes,
    ///   and fails with the error of the last attempt once no retries are left.
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}
