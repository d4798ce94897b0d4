/// The subscriber behind ``Publisher/subscribe(_:)-(Subject)``: it forwards everything into a subject
/// and offers itself to the subject as the subscription it requests through.
@usableFromInline
internal final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription, CustomStringConvertible,
    CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Output
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let lock = Lock()
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var subject: Downstream?
    /// The upstream subscription's lifecycle; the value path checks ``SubscriptionLifecycle/isSubscribed``
    /// (a match on the case, without copying the existential).
    @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var status = SubscriptionLifecycle
        .awaitingSubscription

    @inlinable init(_ subject: Downstream) {
        self.subject = subject
    }

    @usableFromInline var description: String { "Subject" }

    @usableFromInline var playgroundDescription: Any { description }

    /// Combine's children: the subject (twice, under both of Combine's names) and the upstream subscription.
    @usableFromInline var customMirror: Mirror {
        let (subject, upstream) = lock.withLock { (self.subject, status.subscription) }
        let children: [Mirror.Child] = [
            ("downstreamSubject", subject as Any),
            ("upstreamSubscription", upstream as Any),
            ("subject", subject as Any),
        ]
        return Mirror(self, children: children)
    }

    @inlinable func receive(subscription: any Subscription) {
        let accepted: Downstream? = lock.withLock {
            guard let subject, status.accept(subscription) else { return nil }
            return subject
        }
        guard let accepted else {
            subscription.cancel()
            return
        }
        accepted.send(subscription: self)
    }

    @inlinable func receive(_ input: Input) -> Subscribers.Demand {
        let target: Downstream? = lock.withLock {
            status.isSubscribed ? subject : nil
        }
        target?.send(input)
        return .none
    }

    /// As Combine's, it passes on only a completion that comes while subscribed: one before the upstream's
    /// subscription is ignored (the subject stays attached and takes a subscription that comes later).
    @inlinable func receive(completion: Subscribers.Completion<Failure>) {
        let target: Downstream? = lock.withLock {
            guard status.isSubscribed else { return nil }
            status = .terminal
            return subject.take()
        }
        target?.send(completion: completion)
    }

    @inlinable func request(_ demand: Subscribers.Demand) {
        let target = lock.withLock { status.subscription }
        target?.request(demand)
    }

    @inlinable func cancel() {
        // The subject is released after unlocking: if this was its last reference, its deinit cancels its
        // upstreams, which may be this very subscriber.
        let (target, released): ((any Subscription)?, Downstream?) = lock.withLock {
            (status.cancel(), subject.take())
        }
        withExtendedLifetime(released) { target?.cancel() }
    }
}
