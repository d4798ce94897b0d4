extension Publisher where Failure == Never {
    /// Wraps this publisher in a connectable publisher: subscribers attach first, and nothing is
    /// requested from this publisher until ``Publishers/MakeConnectable/connect()`` is called.
    ///
    /// Values are shared through a `PassthroughSubject`, exactly as `multicast(subject:)` with a new
    /// `PassthroughSubject` would: a subscriber receives the values emitted while it has demand, then the
    /// completion.
    ///
    /// - Returns: A connectable publisher; its subscriptions describe themselves as `"Multicast"`.
    @inlinable
    public func makeConnectable() -> Publishers.MakeConnectable<Self> {
        Publishers.MakeConnectable(upstream: self)
    }
}

extension Publishers {
    /// A connectable publisher that shares its upstream, through a `PassthroughSubject`, once
    /// ``connect()`` is called.
    ///
    /// Subscribers that attach before `connect()` receive everything the upstream emits while they have
    /// demand; the cancellable `connect()` returns detaches the upstream again. Copies of this value
    /// share one connection point.
    public struct MakeConnectable<Upstream: Publisher>: ConnectablePublisher {
        /// The kind of values published: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of error published: the upstream's.
        public typealias Failure = Upstream.Failure

        @usableFromInline let inner: Multicast<Upstream, PassthroughSubject<Output, Failure>>

        /// Creates a connectable publisher over `upstream`.
        ///
        /// - Parameter upstream: The publisher to connect to on `connect()`.
        @inlinable
        public init(upstream: Upstream) {
            inner = upstream.multicast(subject: PassthroughSubject())
        }

        /// Attaches `subscriber`; it receives a subscription described as `"Multicast"`, then the values
        /// emitted after ``connect()`` while it has demand, then the completion.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.subscribe(subscriber)
        }

        /// Subscribes to the upstream publisher.
        ///
        /// - Returns: A cancellable that cancels that upstream subscription; keep it for as long as the
        ///   connection should last.
        @inlinable
        public func connect() -> any Cancellable {
            inner.connect()
        }
    }
}
