extension Publishers {
    /// A publisher that emits all the values of one publisher, then, once it finishes, all the values of
    /// another.
    ///
    /// The suffix is subscribed to only after the prefix finishes, and receives the demand the downstream
    /// has left. If the prefix fails, the failure is passed on and the suffix is never subscribed to.
    /// The publisher finishes or fails when the suffix does.
    public struct Concatenate<Prefix: Publisher, Suffix: Publisher>: Publisher
    where Prefix.Failure == Suffix.Failure, Prefix.Output == Suffix.Output {
        /// The values of both publishers.
        public typealias Output = Suffix.Output
        /// The failure of both publishers.
        public typealias Failure = Suffix.Failure

        /// The publisher whose values come first.
        public let prefix: Prefix
        /// The publisher whose values follow once `prefix` finishes.
        public let suffix: Suffix

        /// Creates a publisher that emits the values of `prefix`, then those of `suffix`.
        ///
        /// - Parameters:
        ///   - prefix: the publisher whose values come first.
        ///   - suffix: the publisher whose values follow once `prefix` finishes.
        public init(prefix: Prefix, suffix: Suffix) {
            self.prefix = prefix
            self.suffix = suffix
        }

        /// Subscribes `subscriber` to the prefix, and later to the suffix, through one subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where Suffix.Failure == S.Failure, Suffix.Output == S.Input {
            let inner = Inner(downstream: subscriber, suffix: suffix)
            prefix.subscribe(Inner<S>.PrefixSubscriber(inner: inner))
        }
    }
}

extension Publishers.Concatenate: Equatable where Prefix: Equatable, Suffix: Equatable {}

extension Publishers.Concatenate {
    /// The subscription of the downstream; it subscribes to the prefix, then to the suffix.
    fileprivate final class Inner<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Suffix.Output, Downstream.Failure == Suffix.Failure {
        /// What to do once the prefix completes.
        private enum PrefixEnd {
            case ignore
            case subscribeSuffix(Suffix)
            case fail(released: Suffix?)
        }

        private let downstream: Downstream
        private let lock = Lock()
        /// The current upstream's subscription, the prefix's and then the suffix's: awaited, held, then
        /// terminal (the stream ended or was cancelled).
        private nonisolated(unsafe) var lifecycle = SubscriptionLifecycle.awaitingSubscription
        /// Whether `lifecycle` is the suffix's: the prefix finished and the suffix is being subscribed to.
        private nonisolated(unsafe) var onSuffix = false
        /// What the downstream asked for and has not received yet (tracked until the suffix takes over).
        private nonisolated(unsafe) var demand = Subscribers.Demand.none
        /// The suffix, until it is subscribed to or the stream ends.
        private nonisolated(unsafe) var suffix: Suffix?

        init(downstream: Downstream, suffix: Suffix) {
            self.downstream = downstream
            self.suffix = suffix
        }

        var description: String { "Concatenate" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        func request(_ demand: Subscribers.Demand) {
            let upstream: (any Subscription)? = lock.withLock {
                self.demand += demand
                return lifecycle.subscription
            }
            upstream?.request(demand)
        }

        func cancel() {
            let (upstream, released) = lock.withLock { () -> ((any Subscription)?, Suffix?) in
                let released = suffix
                suffix = nil
                return (lifecycle.cancel(), released)
            }
            // The suffix is released here, after the lock.
            withExtendedLifetime(released) {
                upstream?.cancel()
            }
        }

        // MARK: Prefix

        fileprivate func prefixReceive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard !onSuffix else { return false }
                return lifecycle.accept(subscription)
            }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        fileprivate func prefixReceive(_ input: Downstream.Input) -> Subscribers.Demand {
            let wanted = lock.withLock { () -> Bool in
                guard !onSuffix, lifecycle.isSubscribed, demand != .none else { return false }
                demand -= 1
                return true
            }
            guard wanted else { return .none }
            let more = downstream.receive(input)
            if more != .none {
                lock.withLock { demand += more }
            }
            return more
        }

        fileprivate func prefixReceive(completion: Subscribers.Completion<Downstream.Failure>) {
            // The suffix leaves the locked state in `next` so that it is released after the lock.
            let next = lock.withLock { () -> PrefixEnd in
                guard !onSuffix, lifecycle.isSubscribed else { return .ignore }
                let taken = suffix
                suffix = nil
                switch completion {
                case .finished:
                    guard let taken else { return .ignore }
                    onSuffix = true
                    lifecycle = .awaitingSubscription
                    return .subscribeSuffix(taken)
                case .failure:
                    lifecycle = .terminal
                    return .fail(released: taken)
                }
            }
            switch next {
            case .ignore:
                break
            case .subscribeSuffix(let suffix):
                suffix.subscribe(SuffixSubscriber(inner: self))
            case .fail:
                downstream.receive(completion: completion)
            }
        }

        // MARK: Suffix

        fileprivate func suffixReceive(subscription: any Subscription) {
            let pending: Subscribers.Demand? = lock.withLock {
                guard onSuffix, lifecycle.accept(subscription) else { return nil }
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

        fileprivate func suffixReceive(_ input: Downstream.Input) -> Subscribers.Demand {
            let live = lock.withLock { onSuffix && lifecycle.isSubscribed }
            return live ? downstream.receive(input) : .none
        }

        fileprivate func suffixReceive(completion: Subscribers.Completion<Downstream.Failure>) {
            let forward = lock.withLock { () -> Bool in
                guard onSuffix, lifecycle.isSubscribed else { return false }
                lifecycle = .terminal
                return true
            }
            if forward {
                downstream.receive(completion: completion)
            }
        }

        /// The subscriber to the prefix; it shares the identifier and description of the subscription.
        fileprivate struct PrefixSubscriber: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            typealias Input = Suffix.Output
            typealias Failure = Suffix.Failure

            let inner: Inner

            var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
            var description: String { inner.description }
            var customMirror: Mirror { inner.customMirror }
            var playgroundDescription: Any { inner.playgroundDescription }

            func receive(subscription: any Subscription) { inner.prefixReceive(subscription: subscription) }
            func receive(_ input: Input) -> Subscribers.Demand { inner.prefixReceive(input) }
            func receive(completion: Subscribers.Completion<Failure>) { inner.prefixReceive(completion: completion) }
        }

        /// The subscriber to the suffix; it shares the identifier and description of the subscription.
        fileprivate struct SuffixSubscriber: Subscriber, CustomStringConvertible, CustomReflectable,
            CustomPlaygroundDisplayConvertible
        {
            typealias Input = Suffix.Output
            typealias Failure = Suffix.Failure

            let inner: Inner

            var combineIdentifier: CombineIdentifier { inner.combineIdentifier }
            var description: String { inner.description }
            var customMirror: Mirror { inner.customMirror }
            var playgroundDescription: Any { inner.playgroundDescription }

            func receive(subscription: any Subscription) { inner.suffixReceive(subscription: subscription) }
            func receive(_ input: Input) -> Subscribers.Demand { inner.suffixReceive(input) }
            func receive(completion: Subscribers.Completion<Failure>) { inner.suffixReceive(completion: completion) }
        }
    }
}

extension Publisher {
    /// Emits the values of `publisher` before those of this publisher.
    ///
    /// - Parameter publisher: The publisher whose values come first.
    /// - Returns: a publisher that emits every value of `publisher`, then, once it finishes, every value of
    ///   this publisher; it fails as soon as either fails.
    public func prepend<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<P, Self>
    where Failure == P.Failure, Output == P.Output {
        Publishers.Concatenate(prefix: publisher, suffix: self)
    }

    /// Emits the values of `publisher` after this publisher finishes.
    ///
    /// - Parameter publisher: The publisher whose values follow this one's.
    /// - Returns: a publisher that emits every value of this publisher, then, once it finishes, every value
    ///   of `publisher`; it fails as soon as either fails.
    public func append<P: Publisher>(_ publisher: P) -> Publishers.Concatenate<Self, P>
    where P.Failure == Failure, P.Output == Output {
        Publishers.Concatenate(prefix: self, suffix: publisher)
    }
}
