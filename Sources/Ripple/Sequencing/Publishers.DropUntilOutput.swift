extension Publishers {
    /// A publisher that ignores its upstream's values until another publisher emits a value, then
    /// republishes the rest.
    ///
    /// The downstream receives its subscription first; then the other publisher is subscribed to (and
    /// asked for one value), then the upstream. Demand passes through to the upstream; as in Combine,
    /// values ignored before the other publisher emits use up that demand, and an upstream value beyond
    /// the demand traps, even after a cancel. If the other publisher
    /// completes without a value, the upstream is cancelled and that completion is passed on.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
    where Upstream.Failure == Other.Failure {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The failure of both publishers.
        public typealias Failure = Upstream.Failure

        /// The publisher whose values are republished once `other` has emitted.
        public let upstream: Upstream
        /// The publisher whose first value starts the republishing.
        public let other: Other

        /// Creates a publisher that ignores values of `upstream` until `other` emits a value.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose values are republished once `other` has emitted.
        ///   - other: the publisher whose first value starts the republishing.
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        /// Sends `subscriber` its subscription, then subscribes to `other` and to the upstream.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, Other.Failure == S.Failure {
            let inner = Inner(downstream: subscriber)
            subscriber.receive(subscription: inner)
            other.subscribe(Inner.OtherSubscriber(inner: inner))
            upstream.subscribe(inner)
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {}

extension Publishers.DropUntilOutput {
    /// The subscriber to the upstream and to the other publisher, and the subscription of the downstream.
    fileprivate final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private let downstream: Downstream
        private let lock = Lock()
        private nonisolated(unsafe) var upstreamLink = SubscriptionLifecycle.awaitingSubscription
        private nonisolated(unsafe) var otherLink = SubscriptionLifecycle.awaitingSubscription
        /// The other publisher has emitted: values are republished.
        private nonisolated(unsafe) var triggered = false
        /// The downstream has completed or cancelled.
        private nonisolated(unsafe) var isTerminal = false
        /// What the downstream asked for, less the values ignored (requested from a late upstream).
        private nonisolated(unsafe) var demand = Subscribers.Demand.none

        init(downstream: Downstream) {
            self.downstream = downstream
        }

        var description: String { "DropUntilOutput" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        // MARK: Upstream

        func receive(subscription: any Subscription) {
            let pending: Subscribers.Demand? = lock.withLock {
                guard !isTerminal, upstreamLink.accept(subscription) else { return nil }
                return demand
            }
            guard let pending else {
                subscription.cancel()
                return
            }
            if pending != .none {
                subscription.request(pending)
            }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let forward = lock.withLock { () -> Bool in
                if triggered, !isTerminal { return true }
                // Ignored (before the other publisher emits, or after the end), it still uses up demand:
                // as in Combine, one nobody asked for traps (also before the subscription or after cancel).
                if demand == .none { APIViolation.unrequestedValue() }
                demand -= 1
                return false
            }
            return forward ? downstream.receive(input) : .none
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let (forward, other) = lock.withLock { () -> (Bool, (any Subscription)?) in
                guard !isTerminal else { return (false, nil) }
                isTerminal = true
                upstreamLink = .terminal
                let other = otherLink.cancel()
                return (true, other)
            }
            guard forward else { return }
            other?.cancel()
            downstream.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            let upstream: (any Subscription)? = lock.withLock {
                guard !isTerminal else { return nil }
                self.demand += demand
                return upstreamLink.subscription
            }
            upstream?.request(demand)
        }

        func cancel() {
            let (upstream, other) = lock.withLock { () -> ((any Subscription)?, (any Subscription)?) in
                isTerminal = true
                return (upstreamLink.cancel(), otherLink.cancel())
            }
            upstream?.cancel()
            other?.cancel()
        }

        // MARK: Other

        fileprivate func otherReceive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard !isTerminal, otherLink.accept(subscription) else { return false }
                return true
            }
            if accepted {
                subscription.request(.max(1))
            } else {
                subscription.cancel()
            }
        }

        fileprivate func otherReceive(_ input: Other.Output) -> Subscribers.Demand {
            lock.withLock {
                guard otherLink.isSubscribed else { return }
                // As in Combine, the other publisher's subscription is let go (not cancelled) once it has
                // emitted; a new subscription it sends later is taken as the first was.
                otherLink = .awaitingSubscription
                triggered = true
            }
            return .none
        }

        fileprivate func otherReceive(completion: Subscribers.Completion<Other.Failure>) {
            let (forward, upstream) = lock.withLock { () -> (Bool, (any Subscription)?) in
                guard otherLink.isSubscribed else { return (false, nil) }
                if triggered {
                    // A completion of a subscription taken after the trigger: let go of it, as Combine does.
                    otherLink = .awaitingSubscription
                    return (false, nil)
                }
                otherLink = .terminal
                guard !isTerminal else { return (false, nil) }
                isTerminal = true
                let upstream = upstreamLink.cancel()
                return (true, upstream)
            }
            guard forward else { return }
            upstream?.cancel()
            downstream.receive(completion: completion)
        }

        /// The subscriber to the other publisher; it shares the identifier and description of the
        /// subscription.
        fileprivate struct OtherSubscriber: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            typealias Input = Other.Output
            typealias Failure = Other.Failure

            let inner: Inner

            var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
            var description: String { inner.description }
            var customMirror: Mirror { inner.customMirror }
            var playgroundDescription: Any { inner.playgroundDescription }

            func receive(subscription: any Subscription) { inner.otherReceive(subscription: subscription) }
            func receive(_ input: Input) -> Subscribers.Demand { inner.otherReceive(input) }
            func receive(completion: Subscribers.Completion<Failure>) { inner.otherReceive(completion: completion) }
        }
    }
}

extension Publisher {
    /// Ignores values until `publisher` emits a value, then republishes every later value.
    ///
    /// - Parameter publisher: the publisher whose first value starts the republishing.
    /// - Returns: a publisher that completes when this publisher does, or with `publisher`'s completion if
    ///   it completes without emitting (cancelling this publisher).
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
    where Failure == P.Failure {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}
