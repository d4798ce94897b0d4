extension Publishers {
    /// A publisher that races publishers of one type and mirrors the first one to emit anything.
    ///
    /// **Ripple's addition**: Combine has no `amb` ("ambiguous", as in Rx, where it is also called
    /// `race`).
    ///
    /// All publishers are subscribed, in order. The first one to send a value or a completion (a
    /// failure too) wins: every other one is cancelled at once, before that first signal reaches the
    /// downstream, and from then on the result republishes exactly what the winner sends — its values,
    /// then its completion. Nothing a loser sends reaches the downstream.
    ///
    /// Demand: until a winner is known, every downstream request is forwarded to every contender (a
    /// contender that subscribes late is asked for everything requested so far), so each one could
    /// answer it alone; once the winner is known, requests go to the winner only.
    ///
    /// With no publishers at all, the result finishes right after handing out its subscription.
    ///
    ///     let fastest = primaryServer.fetch()
    ///         .amb(mirrorServer.fetch())
    ///     // Emits the answer of whichever server answers first; the other request is cancelled.
    public struct Amb<Upstream: Publisher>: Publisher {
        /// The contenders' element type.
        public typealias Output = Upstream.Output
        /// The contenders' failure type.
        public typealias Failure = Upstream.Failure

        /// The contenders, in subscription order.
        public let publishers: [Upstream]

        /// Creates a race between the given publishers (zero or more).
        ///
        /// - Parameter publishers: The publishers that race.
        public init(_ publishers: Upstream...) {
            self.publishers = publishers
        }

        /// Creates a race between the publishers of a sequence (zero or more).
        ///
        /// - Parameter publishers: The publishers that race.
        public init<S: Swift.Sequence>(_ publishers: S) where S.Element == Upstream {
            self.publishers = Array(publishers)
        }

        /// Sends the subscription (`"Amb"`) to `subscriber`, then subscribes to each contender in order.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let race = Race(downstream: subscriber, contenders: publishers.count)
            subscriber.receive(subscription: race)
            guard !publishers.isEmpty else {
                race.finishWithoutContenders()
                return
            }
            for (index, publisher) in publishers.enumerated() {
                publisher.subscribe(race.contender(at: index))
            }
        }

        /// A race between these publishers and `other`.
        ///
        /// - Parameter other: Another publisher of the same type, to join the race.
        /// - Returns: A publisher that mirrors the first of the racing publishers to send a value or a completion.
        public func amb(_ other: Upstream) -> Publishers.Amb<Upstream> {
            Publishers.Amb(publishers + [other])
        }
    }
}

extension Publishers.Amb: Equatable where Upstream: Equatable {
    /// Whether both race equal publishers in the same order.
    ///
    /// - Parameters:
    ///   - lhs: a value.
    ///   - rhs: another value.
    /// - Returns: whether they are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.publishers == rhs.publishers
    }
}

extension Publishers.Amb {
    /// The subscription handed downstream: it decides the winner and then passes the winner's signals
    /// through.
    fileprivate final class Race<Downstream: Subscriber>: Subscription, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        private let lock = Lock()
        private let downstream: Downstream

        // Guarded by `lock`.
        /// Where each contender stands; `terminal` once it lost, was cancelled or completed (anything more
        /// it sends is ignored).
        private nonisolated(unsafe) var entries: [SubscriptionLifecycle]
        private nonisolated(unsafe) var winner: Int?
        private nonisolated(unsafe) var isClosed = false
        /// Everything the downstream requested, for contenders that subscribe late.
        private nonisolated(unsafe) var demand = Subscribers.Demand.none

        init(downstream: Downstream, contenders count: Int) {
            self.downstream = downstream
            entries = Array(repeating: .awaitingSubscription, count: count)
        }

        /// The subscriber for the contender at `index`.
        func contender(at index: Int) -> Contender<Downstream> {
            Contender(race: self, index: index)
        }

        var description: String { "Amb" }

        var customMirror: Mirror { Mirror(self, children: [:]) }

        var playgroundDescription: Any { description }

        /// Finishes the race at once (there is nobody to wait for), unless it was cancelled.
        func finishWithoutContenders() {
            let finish: Bool = lock.withLock {
                guard !isClosed else { return false }
                isClosed = true
                return true
            }
            if finish {
                downstream.receive(completion: .finished)
            }
        }

        // MARK: Subscription

        /// Forwards the request to the winner, or to every contender while there is none.
        func request(_ demand: Subscribers.Demand) {
            APIViolation.checkDemand(demand)
            let (winnerSubscription, everyone): ((any Subscription)?, [any Subscription]) = lock.withLock {
                guard !isClosed else { return (nil, []) }
                self.demand += demand
                guard let winner else { return (nil, subscriptions(of: entries.indices)) }
                guard let subscription = entries[winner].subscription else { return (nil, []) }
                return (subscription, [])
            }
            winnerSubscription?.request(demand)
            for subscription in everyone {
                subscription.request(demand)
            }
        }

        /// Cancels the winner, or every contender while there is none.
        func cancel() {
            let targets: [any Subscription] = lock.withLock {
                guard !isClosed else { return [] }
                isClosed = true
                return retire(entries.indices)
            }
            for subscription in targets {
                subscription.cancel()
            }
        }

        // MARK: Contenders

        fileprivate func contender(at index: Int, received subscription: any Subscription) {
            let demand: Subscribers.Demand? = lock.withLock {
                guard !isClosed, entries[index].accept(subscription) else { return nil }
                return self.demand
            }
            guard let demand else {
                subscription.cancel()
                return
            }
            if demand > 0 {
                subscription.request(demand)
            }
        }

        fileprivate func contender(at index: Int, received value: Upstream.Output) -> Subscribers.Demand {
            guard admit(index, completing: false) else { return .none }
            return downstream.receive(value)
        }

        fileprivate func contender(at index: Int, received completion: Subscribers.Completion<Upstream.Failure>) {
            guard admit(index, completing: true) else { return }
            downstream.receive(completion: completion)
        }

        /// Whether a signal from the contender at `index` goes downstream: when it is the winner, or
        /// becomes it now (every other contender is then cancelled). A completion closes the race.
        private func admit(_ index: Int, completing: Bool) -> Bool {
            let (admitted, losers): (Bool, [any Subscription]) = lock.withLock {
                guard !isClosed, winner == nil || winner == index else { return (false, []) }
                var losers: [any Subscription] = []
                if winner == nil {
                    winner = index
                    losers = retire(entries.indices.filter { $0 != index })
                }
                if completing {
                    isClosed = true
                    entries[index] = .terminal
                }
                return (true, losers)
            }
            for loser in losers {
                loser.cancel()
            }
            return admitted
        }

        /// The subscriptions of the contenders at `indices` that have one (lock held).
        private func subscriptions<C: Collection<Int>>(of indices: C) -> [any Subscription] {
            indices.compactMap { entries[$0].subscription }
        }

        /// Takes the contenders at `indices` out of the race, returning their subscriptions for the
        /// caller to cancel (lock held).
        private func retire<C: Collection<Int>>(_ indices: C) -> [any Subscription] {
            let retired = subscriptions(of: indices)
            for index in indices {
                entries[index] = .terminal
            }
            return retired
        }
    }

    /// The subscriber attached to one contender.
    fileprivate final class Contender<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private let race: Race<Downstream>
        private let index: Int

        init(race: Race<Downstream>, index: Int) {
            self.race = race
            self.index = index
        }

        var description: String { "Amb" }

        var customMirror: Mirror {
            Mirror(self, children: ["parentSubscription": race.combineIdentifier])
        }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            race.contender(at: index, received: subscription)
        }

        func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            race.contender(at: index, received: input)
        }

        func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            race.contender(at: index, received: completion)
        }
    }
}

extension Publisher {
    /// Races this publisher against `others` of the same type and mirrors the first one to send a value
    /// or a completion, cancelling the rest (see ``Publishers/Amb``).
    ///
    /// **Ripple's addition**: Combine has no `amb`.
    ///
    /// - Parameter others: The publishers of the same type that race this one.
    /// - Returns: A publisher that mirrors the first of the racing publishers to send a value or a completion.
    public func amb(_ others: Self...) -> Publishers.Amb<Self> {
        Publishers.Amb([self] + others)
    }

    /// Races this publisher against `other`, a publisher of another type with the same output and
    /// failure, and mirrors the first one to send a value or a completion, cancelling the other (see
    /// ``Publishers/Amb``). Both are type-erased to race as one type.
    ///
    /// **Ripple's addition**: Combine has no `amb`.
    ///
    /// - Parameter other: The publisher that races this one.
    /// - Returns: A publisher that mirrors the first of the racing publishers to send a value or a completion.
    public func amb<Other: Publisher>(_ other: Other) -> Publishers.Amb<AnyPublisher<Output, Failure>>
    where Other.Output == Output, Other.Failure == Failure {
        Publishers.Amb(eraseToAnyPublisher(), other.eraseToAnyPublisher())
    }
}
