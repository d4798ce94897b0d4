/// A publisher that eventually produces one value and finishes, or fails.
///
/// The closure given to `init(_:)` runs once, at once, and receives a ``Promise`` to call with the
/// result, from any thread, at any later time; only the first call counts. Every subscriber, whenever it
/// attaches, receives that result: a success value once it has requested anything, followed at once by
/// `.finished`; a failure as soon as it is known, without demand. The subscriptions are described as
/// `"Future"`.
public final class Future<Output, Failure: Error>: Publisher {
    /// The closure that fulfils the future with a success or a failure.
    public typealias Promise = (Result<Output, Failure>) -> Void

    private let lock = Lock()
    /// The result, once the promise has been called.
    private nonisolated(unsafe) var result: Result<Output, Failure>?
    /// The subscriptions waiting for the result, in the order they attached.
    private nonisolated(unsafe) var waiting: [FutureConduit<Output, Failure>] = []

    /// Creates a future and runs `attemptToFulfill` at once with its promise.
    ///
    /// - Parameter attemptToFulfill: starts the work and calls the promise (now or later, from any
    ///   thread) with its result.
    public init(_ attemptToFulfill: @escaping (@escaping Promise) -> Void) {
        attemptToFulfill(promise)
    }

    /// Attaches `subscriber`: it receives the result as soon as it is known and, for a value, requested.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let conduit = FutureSubscription(parent: self, downstream: subscriber)
        let known: Result<Output, Failure>? = lock.withLock {
            if let result { return result }
            waiting.append(conduit)
            return nil
        }
        if let known {
            conduit.fulfill(known)
        }
        subscriber.receive(subscription: conduit)
        conduit.subscriptionDelivered()
    }

    /// Records the first result and hands it to every waiting subscription; later calls do nothing.
    private func promise(_ result: Result<Output, Failure>) {
        let waiting: [FutureConduit<Output, Failure>]? = lock.withLock {
            guard self.result == nil else { return nil }
            self.result = result
            let waiting = self.waiting
            self.waiting = []
            return waiting
        }
        guard let waiting else { return }
        for conduit in waiting {
            conduit.fulfill(result)
        }
    }

    /// Forgets `conduit` (it was cancelled before the result arrived).
    fileprivate func remove(_ conduit: FutureConduit<Output, Failure>) {
        let removed: FutureConduit<Output, Failure>? = lock.withLock {
            guard let index = waiting.firstIndex(where: { $0 === conduit }) else { return nil }
            return waiting.remove(at: index)
        }
        _ = removed
    }
}

/// A future is safe to share between threads: its state is guarded by its lock.
extension Future: Sendable where Output: Sendable {}

/// The part of a future's subscription that the future sees, independent of the subscriber's type.
private class FutureConduit<Output, Failure: Error> {
    /// Hands the future's result to the subscription.
    func fulfill(_ result: Result<Output, Failure>) {}
}

/// A future's subscription to one subscriber.
///
/// It keeps the result until it may deliver it: a failure once the subscriber has its subscription, a
/// success once the subscriber has also requested something. Delivery happens once, on whichever thread
/// completes those conditions (the promise's, the requester's, or the subscribing one).
private final class FutureSubscription<Downstream: Subscriber>: FutureConduit<Downstream.Input, Downstream.Failure>,
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    typealias Output = Downstream.Input
    typealias Failure = Downstream.Failure

    private let lock = Lock()
    /// The future, until the subscription ends.
    private nonisolated(unsafe) var parent: Future<Output, Failure>?
    /// The subscriber, until the subscription ends (`nil`: delivered or cancelled).
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var hasAnyDemand = false
    /// The result, once the future has it, until delivered.
    private nonisolated(unsafe) var result: Result<Output, Failure>?
    /// Whether `receive(subscription:)` has returned, so a failure may be sent from any thread.
    private nonisolated(unsafe) var isSubscriptionDelivered = false

    init(parent: Future<Output, Failure>, downstream: Downstream) {
        self.parent = parent
        self.downstream = downstream
    }

    var description: String { "Future" }

    /// The future, the subscriber and whether anything was requested, as in Combine.
    var customMirror: Mirror {
        let (parent, downstream, hasAnyDemand) = lock.withLock { (self.parent, self.downstream, self.hasAnyDemand) }
        return Mirror(
            self,
            children: [
                ("parent", parent as Any),
                ("downstream", downstream as Any),
                ("hasAnyDemand", hasAnyDemand),
                ("subject", parent as Any),
            ]
        )
    }

    var playgroundDescription: Any { description }

    override func fulfill(_ result: Result<Output, Failure>) {
        update(releasingParent: true) { self.result = result }
    }

    /// Called once the subscriber's `receive(subscription:)` has returned: a failure may go out now.
    func subscriptionDelivered() {
        update(releasingParent: true) { isSubscriptionDelivered = true }
    }

    /// Records that the subscriber wants the value; it goes out now if the result is known.
    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        update(releasingParent: false) { hasAnyDemand = true }
    }

    /// Ends the subscription: nothing is delivered, and the future forgets it.
    func cancel() {
        let (parent, downstream) = lock.withLock {
            let taken = (self.parent, self.downstream)
            self.parent = nil
            self.downstream = nil
            result = nil
            return taken
        }
        _ = downstream
        parent?.remove(self)
    }

    /// Applies `change` under the lock if the subscription is live; then, if the result may go out,
    /// ends the subscription and delivers the result outside the lock.
    ///
    /// The result may go out once it is known and either something was requested (the subscriber itself
    /// asked, so it has its subscription) or it is a failure and the subscription has been delivered. As in
    /// Combine, a result delivered as the future gets it, or a failure as the subscription is delivered, lets go
    /// of the future only after the delivery (its mirror's `parent` is the future until then); a success
    /// delivered on a request keeps it.
    private func update(releasingParent: Bool, _ change: () -> Void) {
        let delivery: (Downstream, Result<Output, Failure>)? = lock.withLock {
            guard downstream != nil else { return nil }
            change()
            guard let downstream, let result else { return nil }
            let isFailure = if case .failure = result { true } else { false }
            guard hasAnyDemand || (isFailure && isSubscriptionDelivered) else { return nil }
            self.downstream = nil
            self.result = nil
            return (downstream, result)
        }
        guard let (downstream, result) = delivery else { return }
        switch result {
        case .success(let value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
        guard releasingParent else { return }
        let parent = lock.withLock { () -> Future<Output, Failure>? in
            defer { self.parent = nil }
            return self.parent
        }
        _ = parent
    }
}
