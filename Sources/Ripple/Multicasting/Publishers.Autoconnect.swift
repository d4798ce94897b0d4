import Synchronization

extension ConnectablePublisher {
    /// Connects this publisher automatically: when the first subscriber attaches, and again for the
    /// next subscriber after every subscriber has cancelled.
    ///
    /// The connection is cancelled when the last subscriber cancels. A subscriber that only completes
    /// (without cancelling) keeps the connection, so a completed upstream is not connected again.
    ///
    /// - Returns: A publisher that passes the upstream's subscriptions, values and completion through
    ///   unchanged.
    @inlinable
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}

extension Publishers {
    /// A publisher that connects its connectable upstream while it has subscribers.
    ///
    /// Each subscriber is attached to ``upstream`` and then, if no connection exists, `connect()` is
    /// called. The subscribers are counted; the first `cancel()` of each subscriber's subscription lowers
    /// the count, and when it reaches zero the connection is cancelled. A later subscriber connects
    /// again. Subscriptions, values and completions pass through unchanged (a subscription keeps the
    /// upstream subscription's description and identifier).
    ///
    /// Safe from any thread: at most one connection is made at a time, also when subscribers attach
    /// concurrently or re-entrantly from within `connect()` or `receive(subscription:)` (Combine may call
    /// `connect()` twice in the re-entrant case; Ripple connects once). A connection whose subscribers all
    /// cancelled while `connect()` was still running is cancelled as soon as `connect()` returns.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
        /// The kind of values published: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of error published: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The connectable publisher this publisher subscribes to and connects.
        public let upstream: Upstream

        @usableFromInline let lock = Lock()
        /// Subscribers attached and not yet cancelled.
        @usableFromInline nonisolated(unsafe) var subscriberCount = 0
        /// The live connection, if any.
        @usableFromInline nonisolated(unsafe) var connection: (any Cancellable)?
        /// Set while one thread runs `upstream.connect()`.
        @usableFromInline nonisolated(unsafe) var isConnecting = false

        /// Creates a publisher that connects `upstream` while it has subscribers.
        ///
        /// - Parameter upstream: The connectable publisher to connect.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        /// Attaches `subscriber` to the upstream, then connects the upstream if it is not connected.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let mustConnect = lock.withLock { () -> Bool in
                subscriberCount += 1
                guard connection == nil, !isConnecting else { return false }
                isConnecting = true
                return true
            }
            upstream.subscribe(AutoconnectInner(parent: self, downstream: subscriber))
            guard mustConnect else { return }
            let newConnection = upstream.connect()
            let keep = lock.withLock { () -> Bool in
                isConnecting = false
                guard subscriberCount > 0 else { return false }
                connection = newConnection
                return true
            }
            if !keep { newConnection.cancel() }
        }

        /// Called once per subscriber whose subscription is cancelled: disconnects after the last one.
        @usableFromInline func subscriberDidCancel() {
            let disconnect: (any Cancellable)? = lock.withLock {
                guard subscriberCount > 0 else { return nil }
                subscriberCount -= 1
                guard subscriberCount == 0 else { return nil }
                let current = connection
                connection = nil
                return current
            }
            disconnect?.cancel()
        }
    }
}

/// The subscriber ``Publishers/Autoconnect`` attaches to its upstream for each downstream subscriber;
/// it forwards everything and wraps the subscription so that cancelling it is counted.
@usableFromInline
internal final class AutoconnectInner<Upstream: ConnectablePublisher, Downstream: Subscriber>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
    @usableFromInline typealias Input = Upstream.Output
    @usableFromInline typealias Failure = Upstream.Failure

    @usableFromInline let parent: Publishers.Autoconnect<Upstream>
    @usableFromInline let downstream: Downstream

    @inlinable init(parent: Publishers.Autoconnect<Upstream>, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    @usableFromInline var description: String { "Autoconnect" }

    /// As Combine's: the ``Publishers/Autoconnect`` publisher and the downstream subscriber.
    @usableFromInline var customMirror: Mirror {
        let children: [Mirror.Child] = [("parent", parent), ("downstream", downstream)]
        return Mirror(self, children: children)
    }

    @usableFromInline var playgroundDescription: Any { description }

    @inlinable func receive(subscription: any Subscription) {
        downstream.receive(subscription: AutoconnectSubscription(subscription, parent: parent))
    }

    @inlinable func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }
}

/// The upstream subscription as a ``Publishers/Autoconnect`` subscriber sees it: requests and cancels
/// pass through; the first cancel also tells the parent that this subscriber is gone.
@usableFromInline
internal final class AutoconnectSubscription<Upstream: ConnectablePublisher>: Subscription,
    CustomStringConvertible, CustomPlaygroundDisplayConvertible
{
    @usableFromInline let upstreamSubscription: any Subscription
    @usableFromInline let parent: Publishers.Autoconnect<Upstream>
    @usableFromInline let isCancelled = Atomic<Bool>(false)

    @inlinable init(_ upstreamSubscription: any Subscription, parent: Publishers.Autoconnect<Upstream>) {
        self.upstreamSubscription = upstreamSubscription
        self.parent = parent
    }

    @usableFromInline var description: String { String(describing: upstreamSubscription) }

    @usableFromInline var playgroundDescription: Any { description }

    @usableFromInline var combineIdentifier: CombineIdentifier { upstreamSubscription.combineIdentifier }

    @inlinable func request(_ demand: Subscribers.Demand) {
        upstreamSubscription.request(demand)
    }

    @inlinable func cancel() {
        if !isCancelled.exchange(true, ordering: .acquiringAndReleasing) {
            parent.subscriberDidCancel()
        }
        upstreamSubscription.cancel()
    }
}

/// Safe to share across threads when its upstream is: the connection state is guarded by its lock.
extension Publishers.Autoconnect: Sendable where Upstream: Sendable {}
