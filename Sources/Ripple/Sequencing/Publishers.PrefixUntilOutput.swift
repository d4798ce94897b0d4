extension Publishers {
    /// A publisher that republishes its upstream until another publisher emits a value, then finishes.
    ///
    /// The other publisher is subscribed to first and asked for one value. When it emits, the upstream is
    /// cancelled and the publisher finishes; if it completes without a value, it has no effect. Demand
    /// passes through to the upstream; the upstream's completion passes through (and cancels the other
    /// publisher).
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are republished.
        public let upstream: Upstream
        /// The publisher whose first value ends the stream.
        public let other: Other

        /// Creates a publisher that republishes `upstream` until `other` emits a value.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are republished.
        ///   - other: the publisher whose first value ends the stream.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Subscribes to `other`, then subscribes `subscriber` to the upstream.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            let inner = Inner(downstream: subscriber)
            other.subscribe(Inner.TriggerSubscriber(inner: inner))
            upstream.subscribe(inner)
        }
    }
}

extension Publishers.PrefixUntilOutput {
    /// The subscriber to the upstream and to the trigger, and the subscription of the downstream. As in
    /// Combine, it has no description or mirror of its own (it prints as its type's name).
    final class Inner<Downstream: Subscriber>: Subscriber, Subscription
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        /// What the trigger's value leads to.
        private enum TriggerStep {
            case none
            /// Cancel the upstream; send `.finished` unless a value is being delivered (it is sent after).
            case finish(upstream: any Subscription, now: Bool)
            /// The upstream has not subscribed yet: give the downstream a subscription, then `.finished`.
            case finishBeforeSubscription
        }

        private let downstream: Downstream
        private let lock = Lock()
        private nonisolated(unsafe) var upstreamLink = SubscriptionLifecycle.awaitingSubscription
        private nonisolated(unsafe) var triggerLink = SubscriptionLifecycle.awaitingSubscription
        /// How many values are being delivered downstream right now (more than one only re-entrantly).
        private nonisolated(unsafe) var delivering = 0
        /// The trigger fired during a delivery: `.finished` is sent when the delivery returns.
        private nonisolated(unsafe) var finishPending = false

        init(downstream: Downstream) {
            self.downstream = downstream
        }

        // MARK: Upstream

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard upstreamLink.accept(subscription) else { return false }
                return true
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let live = lock.withLock { () -> Bool in
                guard upstreamLink.isSubscribed else { return false }
                delivering += 1
                return true
            }
            guard live else { return .none }
            let more = downstream.receive(input)
            let finishNow = lock.withLock { () -> Bool in
                delivering -= 1
                guard delivering == 0, finishPending else { return false }
                finishPending = false
                return true
            }
            if finishNow {
                downstream.receive(completion: .finished)
                return .none
            }
            return more
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let (forward, trigger) = lock.withLock { () -> (Bool, (any Subscription)?) in
                switch upstreamLink {
                case .subscribed:
                    upstreamLink = .terminal
                    return (true, triggerLink.cancel())
                case .awaitingSubscription:
                    // As in Combine, a completion before the subscription (which only a broken upstream
                    // sends) ends the operator without passing on: the trigger is cancelled, and so will be a
                    // late subscription.
                    upstreamLink = .terminal
                    return (false, triggerLink.cancel())
                case .pendingTerminal, .terminal:
                    return (false, nil)
                }
            }
            trigger?.cancel()
            if forward {
                downstream.receive(completion: completion)
            }
        }

        func request(_ demand: Subscribers.Demand) {
            let upstream = lock.withLock { upstreamLink.subscription }
            upstream?.request(demand)
        }

        func cancel() {
            let (upstream, trigger) = lock.withLock { () -> ((any Subscription)?, (any Subscription)?) in
                let links = (upstreamLink.subscription, triggerLink.subscription)
                upstreamLink = .terminal
                triggerLink = .terminal
                finishPending = false
                return links
            }
            upstream?.cancel()
            trigger?.cancel()
        }

        // MARK: Trigger

        fileprivate func triggerReceive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard triggerLink.accept(subscription) else { return false }
                return true
            }
            if accepted {
                subscription.request(.max(1))
            } else {
                subscription.cancel()
            }
        }

        fileprivate func triggerReceive(_ input: Other.Output) -> Subscribers.Demand {
            let step = lock.withLock { () -> TriggerStep in
                guard triggerLink.isSubscribed else { return .none }
                triggerLink = .terminal
                switch upstreamLink {
                case .awaitingSubscription:
                    upstreamLink = .terminal
                    return .finishBeforeSubscription
                case .subscribed(let upstream):
                    upstreamLink = .terminal
                    if delivering > 0 {
                        finishPending = true
                        return .finish(upstream: upstream, now: false)
                    }
                    return .finish(upstream: upstream, now: true)
                case .pendingTerminal, .terminal:
                    return .none
                }
            }
            switch step {
            case .none:
                break
            case .finish(let upstream, let now):
                upstream.cancel()
                if now {
                    downstream.receive(completion: .finished)
                }
            case .finishBeforeSubscription:
                downstream.receive(subscription: self)
                downstream.receive(completion: .finished)
            }
            return .none
        }

        fileprivate func triggerReceive(completion: Subscribers.Completion<Other.Failure>) {
            lock.withLock { triggerLink = .terminal }
        }

        /// The subscriber to the trigger; it shares the identifier of the subscription and, as in Combine,
        /// has no description or mirror of its own.
        fileprivate struct TriggerSubscriber: Subscriber {
            typealias Input = Other.Output
            typealias Failure = Other.Failure

            let inner: Inner

            var combineIdentifier: CombineIdentifier { inner.combineIdentifier }

            func receive(subscription: any Subscription) { inner.triggerReceive(subscription: subscription) }
            func receive(_ input: Input) -> Subscribers.Demand { inner.triggerReceive(input) }
            func receive(completion: Subscribers.Completion<Failure>) { inner.triggerReceive(completion: completion) }
        }
    }
}

extension Publisher {
    /// Republishes values until `publisher` emits a value, then finishes.
    ///
    /// - Parameter publisher: the publisher whose first value ends the stream; its completion without a
    ///   value has no effect.
    /// - Returns: a publisher that emits this publisher's values, and finishes (cancelling this publisher)
    ///   when `publisher` emits, or completes when this publisher does.
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}
