extension Publishers {
    /// A publisher that turns each upstream element into a publisher and interleaves the elements of
    /// all those publishers.
    ///
    /// At most `maxPublishers` inner publishers are subscribed at once: the upstream is asked for
    /// `maxPublishers` elements at first and, when that is finite, for one more each time an inner
    /// publisher finishes. Each inner publisher is asked for one value at a time while the downstream
    /// demand is finite (for `.unlimited` once the downstream wants unlimited values), and the
    /// downstream never receives more values than it requested; values from different inner publishers
    /// are delivered one at a time, in the order they can be delivered.
    ///
    /// It finishes when the upstream and every inner publisher finished and every buffered value was
    /// delivered. The first failure, from the upstream or from an inner publisher, is delivered at once
    /// after everything else was cancelled.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
    where NewPublisher.Failure == Upstream.Failure {
        /// The elements of the inner publishers.
        public typealias Output = NewPublisher.Output
        /// The upstream's failure, which is also the inner publishers' failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose elements are transformed into publishers.
        public let upstream: Upstream
        /// The most inner publishers subscribed at once, or `.unlimited`.
        public let maxPublishers: Subscribers.Demand
        /// Makes the inner publisher for an upstream element.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a publisher that subscribes to `transform(element)` for each upstream element, at most
        /// `maxPublishers` at once.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose elements are transformed into publishers.
        ///   - maxPublishers: the most inner publishers subscribed at once, or `.unlimited`.
        ///   - transform: Makes the inner publisher for an upstream element.
        @inlinable public init(
            upstream: Upstream, maxPublishers: Subscribers.Demand,
            transform: @escaping (Upstream.Output) -> NewPublisher
        ) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        /// Sends the subscription (`"FlatMap"`) to `subscriber`, then subscribes to the upstream.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let fanIn = FanIn(.flatMap(maxPublishers: maxPublishers), downstream: subscriber)
            subscriber.receive(subscription: fanIn)
            upstream.subscribe(Feeder(fanIn: fanIn, maxPublishers: maxPublishers, transform: transform))
        }
    }
}

extension Publishers.FlatMap {
    /// The subscriber attached to the upstream: it makes an inner publisher of each element and
    /// subscribes the fan-in to it.
    @usableFromInline
    final class Feeder<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    where Downstream.Input == NewPublisher.Output, Downstream.Failure == Upstream.Failure {
        @usableFromInline typealias Input = Upstream.Output
        @usableFromInline typealias Failure = Upstream.Failure

        @usableFromInline let fanIn: FanIn<Downstream>
        @usableFromInline let maxPublishers: Subscribers.Demand
        @usableFromInline let transform: (Upstream.Output) -> NewPublisher

        @inlinable init(
            fanIn: FanIn<Downstream>, maxPublishers: Subscribers.Demand,
            transform: @escaping (Upstream.Output) -> NewPublisher
        ) {
            self.fanIn = fanIn
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        @usableFromInline var description: String { "FlatMap" }

        /// The fan-in's: as in Combine, where one object subscribes to the upstream and is the subscription,
        /// the inner subscribers' `parentSubscription` names this identifier.
        @usableFromInline var combineIdentifier: CombineIdentifier { fanIn.combineIdentifier }

        @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }

        @usableFromInline var playgroundDescription: Any { description }

        /// Asks for `maxPublishers` upstream elements; as in Combine, also when that is `.none`.
        @inlinable func receive(subscription: any Subscription) {
            guard fanIn.attachFeeder(subscription) else {
                subscription.cancel()
                return
            }
            subscription.request(maxPublishers)
        }

        @inlinable func receive(_ input: Upstream.Output) -> Subscribers.Demand {
            guard let source = fanIn.makeSource() else { return .none }
            transform(input).subscribe(source)
            return .none
        }

        @inlinable func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            fanIn.feederCompleted(completion)
        }
    }
}

extension Publisher {
    /// Transforms each element into a publisher and republishes the elements of all those publishers,
    /// interleaved, with at most `maxPublishers` of them subscribed at once.
    ///
    /// The result finishes when this publisher and every inner publisher finished; it fails with the
    /// first failure of this publisher or of an inner publisher, cancelling the others.
    ///
    /// - Parameters:
    ///   - maxPublishers: the most inner publishers subscribed at once; `.unlimited` by default.
    ///   - transform: makes the publisher for an element.
    /// - Returns: A publisher of the values of the publishers `transform` makes, in arrival order.
    @inlinable public func flatMap<T, P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where T == P.Output, Failure == P.Failure {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publisher where Failure == Never {
    /// Transforms each element of this publisher that cannot fail into a publisher that can, and
    /// republishes the elements of all those publishers interleaved, with at most `maxPublishers` of them
    /// subscribed at once; fails with the first failure of an inner publisher.
    ///
    /// - Parameters:
    ///   - maxPublishers: the most inner publishers subscribed at once; `.unlimited` by default.
    ///   - transform: makes the publisher for an element.
    /// - Returns: A publisher of the values of the publishers `transform` makes, in arrival order.
    @inlinable public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>> {
        Publishers.FlatMap(
            upstream: Publishers.SetFailureType(upstream: self),
            maxPublishers: maxPublishers,
            transform: transform
        )
    }

    /// Transforms each element into a publisher that cannot fail, and republishes the elements of all
    /// those publishers interleaved, with at most `maxPublishers` of them subscribed at once.
    ///
    /// - Parameters:
    ///   - maxPublishers: the most inner publishers subscribed at once; `.unlimited` by default.
    ///   - transform: makes the publisher for an element.
    /// - Returns: A publisher of the values of the publishers `transform` makes, in arrival order.
    @inlinable public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<P, Self> where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publisher {
    /// Transforms each element into a publisher that cannot fail, and republishes the elements of all
    /// those publishers interleaved, with at most `maxPublishers` of them subscribed at once; fails with
    /// this publisher's failure.
    ///
    /// - Parameters:
    ///   - maxPublishers: the most inner publishers subscribed at once; `.unlimited` by default.
    ///   - transform: makes the publisher for an element.
    /// - Returns: A publisher of the values of the publishers `transform` makes, in arrival order.
    @inlinable public func flatMap<P: Publisher>(
        maxPublishers: Subscribers.Demand = .unlimited,
        _ transform: @escaping (Output) -> P
    ) -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self> where P.Failure == Never {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
            Publishers.SetFailureType(upstream: transform($0))
        }
    }
}
