extension Publisher {
    /// Shares one subscription to this publisher among all subscribers, and replays the last `replay`
    /// values (and the completion) to each new subscriber. Ripple's addition; Combine has no such
    /// operator.
    ///
    /// - **Connection.** As ``share()``: the first subscriber subscribes to this publisher, the
    ///   subscription is cancelled when every subscriber has cancelled, and the next subscriber
    ///   subscribes again. Unlimited demand is requested from this publisher once any subscriber has
    ///   requested something.
    /// - **Replay.** The last `replay` values emitted are remembered for the life of the returned
    ///   publisher, also across disconnection and reconnection. A new subscriber first receives the
    ///   remembered values, oldest first, as it requests them (with demand `.max(1)` it receives only the
    ///   oldest, then the next each time it asks), then the values emitted from then on.
    /// - **Demand.** No subscriber ever receives more values than it requested; subscribers are
    ///   delivered to independently, each in order and never concurrently. A value emitted while a
    ///   subscriber has outstanding demand is never dropped for it (a subscriber with unlimited demand
    ///   receives everything). A value emitted while it has none is kept for it in a pending queue of
    ///   at most `replay` values: when the queue is full the oldest is dropped, so a slow subscriber
    ///   later receives the newest `replay` values it missed. With `replay: 0` such values are not
    ///   delivered to it and nothing is remembered, which is the behaviour of ``share()``.
    /// - **Completion.** The completion (finished or failure) is remembered too. Each subscriber
    ///   receives it after the values still pending for it, once it has requested those. A subscriber
    ///   arriving after the completion receives the remembered values as it requests them and then the
    ///   completion; this publisher is **not** subscribed to again (like RxSwift's `.forever` scope).
    ///
    /// Subscriptions describe themselves as `"ShareReplay"`. All of it is safe from any thread.
    ///
    /// - Parameter replay: How many of the most recent values to remember and replay; `0` or less
    ///   remembers none.
    /// - Returns: A publisher with reference semantics that shares and replays this publisher's output.
    public func share(replay: Int) -> Publishers.ShareReplay<Self> {
        Publishers.ShareReplay(upstream: self, replay: replay)
    }
}

extension Publishers {
    /// A publisher that shares one subscription to its upstream among all its subscribers and replays
    /// the most recent values, and the completion, to each new subscriber. See
    /// ``Publisher/share(replay:)``.
    ///
    /// A class: copies of a reference share the same upstream subscription and remembered values; two
    /// instances are equal only if they are the same instance.
    public final class ShareReplay<Upstream: Publisher>: Publisher, Equatable {
        /// The kind of values published: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of error published: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher whose output is shared.
        public let upstream: Upstream

        /// How many of the most recent values are remembered and replayed to a new subscriber (never
        /// negative).
        public let replay: Int

        private let inner: Autoconnect<ReplayConnectable<Upstream>>

        /// Creates a publisher that shares `upstream` and replays its last `replay` values (none if
        /// `replay` is `0` or less).
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose output is shared.
        ///   - replay: how many of the most recent values are remembered and replayed to a new subscriber (never
        ///     negative).
        public init(upstream: Upstream, replay: Int) {
            self.upstream = upstream
            self.replay = Swift.max(0, replay)
            inner = ReplayConnectable(upstream: upstream, replay: replay).autoconnect()
        }

        /// Attaches `subscriber`: it receives the remembered values as it requests them, then the live
        /// ones, then the completion. Subscribes to the upstream if it is not subscribed and has not
        /// completed.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            inner.subscribe(subscriber)
        }

        /// Whether `lhs` and `rhs` are the same instance.
        ///
        /// - Parameters:
        ///   - lhs: a value.
        ///   - rhs: another value.
        /// - Returns: whether they are equal.
        public static func == (lhs: ShareReplay, rhs: ShareReplay) -> Bool {
            lhs === rhs
        }
    }
}

/// The connectable publisher under ``Publishers/ShareReplay``'s autoconnection: subscribers attach to
/// one ``ReplaySubject``; `connect()` subscribes that subject to the upstream unless it has completed.
private struct ReplayConnectable<Upstream: Publisher>: ConnectablePublisher {
    typealias Output = Upstream.Output
    typealias Failure = Upstream.Failure

    let upstream: Upstream
    let subject: ReplaySubject<Output, Failure>

    init(upstream: Upstream, replay: Int) {
        self.upstream = upstream
        subject = ReplaySubject(capacity: replay, name: "ShareReplay")
    }

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subject.subscribe(subscriber)
    }

    func connect() -> any Cancellable {
        // A completed subject has everything it will ever replay: the upstream is not subscribed again.
        if subject.isCompleted { return AnyCancellable {} }
        return subject.connect(to: upstream)
    }
}

/// Safe to share across threads when its upstream is: all shared state is guarded by locks.
extension Publishers.ShareReplay: Sendable where Upstream: Sendable {}

extension ReplayConnectable: Sendable where Upstream: Sendable {}
