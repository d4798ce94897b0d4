extension Publisher {
    /// Shares one subscription to this publisher among all subscribers.
    ///
    /// The first subscriber connects to this publisher; later subscribers join the same stream and
    /// receive only what is emitted after they attach (nothing is replayed), each value while they have
    /// demand. When every subscriber has cancelled, the upstream subscription is cancelled, and the next
    /// subscriber subscribes again. After the upstream completes, later subscribers receive the
    /// completion at once. This is `multicast(subject: PassthroughSubject())` followed by
    /// `autoconnect()`, as in Combine; for a late subscriber that should also see recent values, use
    /// ``share(replay:)``.
    ///
    /// - Returns: A publisher with reference semantics; its subscriptions describe themselves as
    ///   `"Multicast"`.
    @inlinable
    public func share() -> Publishers.Share<Self> {
        Publishers.Share(upstream: self)
    }
}

extension Publishers {
    /// A publisher that shares one subscription to its upstream among all its subscribers.
    ///
    /// A class, unlike most publishers: copies of a reference share the same upstream subscription, and
    /// two instances are equal only if they are the same instance. See ``Publisher/share()``.
    public final class Share<Upstream: Publisher>: Publisher, Equatable {
        /// The kind of values published: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of error published: the upstream's.
        public typealias Failure = Upstream.Failure

        @usableFromInline let inner: Autoconnect<Multicast<Upstream, PassthroughSubject<Output, Failure>>>

        /// The publisher whose output is shared.
        public let upstream: Upstream

        /// Creates a publisher that shares `upstream`.
        ///
        /// - Parameter upstream: The publisher to share.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
            inner = upstream.multicast(subject: PassthroughSubject()).autoconnect()
        }

        /// Attaches `subscriber` to the shared stream, subscribing to the upstream if no one else is
        /// attached.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.subscribe(subscriber)
        }

        /// Whether `lhs` and `rhs` are the same instance.
        ///
        /// - Parameters:
        ///   - lhs: a value.
        ///   - rhs: another value.
        /// - Returns: whether they are equal.
        public static func == (lhs: Share, rhs: Share) -> Bool {
            lhs === rhs
        }
    }
}
