extension Publisher {
    /// Shares this publisher through a subject that `createSubject` makes: every subscriber attaches to
    /// that one subject, and ``Publishers/Multicast/connect()`` attaches the subject to this publisher.
    ///
    /// Nothing is requested from this publisher until `connect()` is called, so subscribers can attach
    /// first; each value the upstream emits is then produced once and handed to every subscriber through
    /// the subject (with a `PassthroughSubject`, to those that have demand at that moment). A subscriber
    /// that attaches after `connect()` sees only what the subject delivers from then on.
    ///
    /// `createSubject` is called lazily, the first time a subscriber attaches or `connect()` is called;
    /// the returned publisher keeps that subject for its whole life.
    ///
    /// - Parameter createSubject: Makes the subject that delivers the values to the subscribers.
    /// - Returns: A connectable publisher; its subscriptions describe themselves as `"Multicast"`.
    @inlinable
    public func multicast<S: Subject>(
        _ createSubject: @escaping () -> S
    ) -> Publishers.Multicast<Self, S> where S.Output == Output, S.Failure == Failure {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Shares this publisher through `subject`: every subscriber attaches to `subject`, and
    /// ``Publishers/Multicast/connect()`` attaches `subject` to this publisher.
    ///
    /// As ``multicast(_:)`` with a closure that returns `subject`.
    ///
    /// - Parameter subject: The subject that delivers the values to the subscribers.
    /// - Returns: A connectable publisher; its subscriptions describe themselves as `"Multicast"`.
    @inlinable
    public func multicast<S: Subject>(
        subject: S
    ) -> Publishers.Multicast<Self, S> where S.Output == Output, S.Failure == Failure {
        multicast { subject }
    }
}

extension Publishers {
    /// A connectable publisher that delivers its upstream's output to every subscriber through one
    /// subject.
    ///
    /// Subscribers attach to the subject (created once, lazily, by ``createSubject``); ``connect()``
    /// subscribes the subject to ``upstream`` and returns a cancellable that detaches it again. Calling
    /// `connect()` again while connected attaches the subject a second time (as Combine does). Values,
    /// demand and completion are those of the subject: each subscriber's requests go to its subject
    /// subscription, and the subject's completion reaches every subscriber.
    ///
    /// `receive(subscriber:)` and `connect()` are safe from any thread. If the very first uses race on
    /// several threads, `createSubject` may run more than once, but only one subject is ever kept and
    /// used.
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
    where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output {
        /// The kind of values published: the upstream's.
        public typealias Output = Upstream.Output
        /// The kind of error published: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher the subject is attached to on ``connect()``.
        public let upstream: Upstream

        /// Creates the subject; called once, when the subject is first needed.
        public let createSubject: () -> SubjectType

        @usableFromInline let lock = Lock()
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var subject: SubjectType?

        /// Creates a connectable publisher that shares `upstream` through the subject `createSubject`
        /// makes.
        ///
        /// - Parameters:
        ///   - upstream: the publisher the subject is attached to on ``connect()``.
        ///   - createSubject: Creates the subject; called once, when the subject is first needed.
        @inlinable
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        /// The subject, made on first use. `createSubject` runs outside the lock; if two threads race,
        /// the first subject stored wins and the other is discarded.
        @inlinable var lazySubject: SubjectType {
            if let existing = lock.withLock({ subject }) { return existing }
            let created = createSubject()
            return lock.withLock {
                if let existing = subject { return existing }
                subject = created
                return created
            }
        }

        /// Attaches `subscriber` to the subject; it receives a subscription described as `"Multicast"`,
        /// then what the subject delivers while it has demand, then the subject's completion.
        ///
        /// - Parameter subscriber: the subscriber.
        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            lazySubject.subscribe(MulticastInner(downstream: subscriber))
        }

        /// Subscribes the subject to ``upstream``.
        ///
        /// - Returns: A cancellable that cancels that upstream subscription (values stop; the subject
        ///   and its subscribers are not completed). Keep it for as long as the connection should last.
        // Always inlined, as `subscribe(_:)` into a subject is: a caller that keeps the connection to itself
        // then gets its AnyCancellable on the stack. Left to the inliner, the two stopped being inlined when
        // SubjectSubscriber kept a SubscriptionLifecycle, and the connection cost one allocation more.
        @inlinable
        @inline(__always)
        public func connect() -> any Cancellable {
            upstream.subscribe(lazySubject)
        }
    }
}

/// The subscriber a ``Publishers/Multicast`` attaches to its subject for each downstream subscriber,
/// and the subscription that downstream receives (described as `"Multicast"`).
///
/// Extra demand the downstream returns from `receive(_:)` is requested from the subject subscription
/// (as Combine does) rather than returned. Signals before the subject's subscription and after a
/// completion or cancellation are ignored; a second subscription is cancelled.
@usableFromInline
internal final class MulticastInner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    /// Not a SubscriptionLifecycle: the value path tests this payload-free byte under the lock, and holding the
    /// subscription in a lifecycle's case made share and multicast 12–38% slower per value (measured 2026-11-27).
    @usableFromInline enum Phase {
        /// Waiting for the subject's subscription.
        case awaitingSubscription
        /// Connected to the subject.
        case subscribed
        /// Completed or cancelled.
        case terminated
    }

    /// Guards the fields below, which skip the dynamic exclusivity check (the lock makes every access
    /// exclusive). Kept as separate fields rather than one enum with payloads, so that the value path
    /// copies only the downstream out of the lock.
    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var phase = Phase.awaitingSubscription
    /// Until completed or cancelled.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var downstream: Downstream?
    /// The subject subscription, while subscribed.
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var subscription: (any Subscription)?

    @inlinable init(downstream: Downstream) {
        self.downstream = downstream
    }

    @usableFromInline var description: String { "Multicast" }

    /// As Combine's: no children.
    @usableFromInline var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

    @usableFromInline var playgroundDescription: Any { description }

    @inlinable func receive(subscription: any Subscription) {
        let downstream: Downstream? = lock.withLock {
            guard phase == .awaitingSubscription else { return nil }
            phase = .subscribed
            self.subscription = subscription
            return self.downstream
        }
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    @inlinable func receive(_ input: Input) -> Subscribers.Demand {
        let target: Downstream? = lock.withLock { phase == .subscribed ? downstream : nil }
        guard let downstream = target else { return .none }
        let more = downstream.receive(input)
        // Rare: the subject subscription is fetched only when there is demand to pass on.
        if more > 0 { request(more) }
        return .none
    }

    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        let released = terminate()
        withExtendedLifetime(released.1) {
            released.0?.receive(completion: completion)
        }
    }

    /// Ends the subscription once: hands back the downstream and the upstream subscription (to be released
    /// after the lock), or nothing when it had already ended.
    @inlinable func terminate() -> (Downstream?, (any Subscription)?) {
        lock.withLock {
            guard phase == .subscribed else { return (nil, nil) }
            phase = .terminated
            defer {
                downstream = nil
                subscription = nil
            }
            return (downstream, subscription)
        }
    }

    @inlinable func request(_ demand: Subscribers.Demand) {
        let subscription: (any Subscription)? = lock.withLock { phase == .subscribed ? self.subscription : nil }
        subscription?.request(demand)
    }

    @inlinable func cancel() {
        // The downstream and the subscription are released after the lock.
        let released = terminate()
        withExtendedLifetime(released.0) {
            released.1?.cancel()
        }
    }
}
