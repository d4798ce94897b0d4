/// The subscriber behind ``Publisher/subscribe(_:)-(Subject)``: it forwards everything into a subject
/// and offers itself to the subject as the subscription it requests through.
internal final class SubjectSubscriber<Downstream: Subject>: Subscriber, Subscription, CustomStringConvertible {
    typealias Input = Downstream.Output
    typealias Failure = Downstream.Failure

    private let lock = Lock()
    private nonisolated(unsafe) var subject: Downstream?
    private nonisolated(unsafe) var upstream: (any Subscription)?

    init(_ subject: Downstream) {
        self.subject = subject
    }

    var description: String { "Subject" }

    func receive(subscription: any Subscription) {
        let accepted: Downstream? = lock.withLock {
            guard upstream == nil, let subject else { return nil }
            upstream = subscription
            return subject
        }
        guard let accepted else {
            subscription.cancel()
            return
        }
        accepted.send(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let target = lock.withLock { upstream == nil ? nil : subject }
        target?.send(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let target: Downstream? = lock.withLock {
            let target = subject
            subject = nil
            upstream = nil
            return target
        }
        target?.send(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let target = lock.withLock { upstream }
        target?.request(demand)
    }

    func cancel() {
        // The subject is released after unlocking: if this was its last reference, its deinit cancels its
        // upstreams, which may be this very subscriber.
        let (target, released): ((any Subscription)?, Downstream?) = lock.withLock {
            let taken = (upstream, subject)
            upstream = nil
            subject = nil
            return taken
        }
        withExtendedLifetime(released) { target?.cancel() }
    }
}
