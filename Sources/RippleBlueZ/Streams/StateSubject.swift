import Ripple

/// The source of a *state* stream: it holds the current value, and each subscriber gets the current value
/// as its first, then the latest value each time it has demand and the value has changed since what it
/// was last given.
///
/// - Under slow demand, values coalesce to the latest: a subscriber never gets a value older than the
///   current one at the moment it is delivered, so the last value delivered is never stale.
/// - A value equal to the one the subscriber was last given (per `isDuplicate`) is not delivered again.
/// - A completion goes out after the latest value the subscriber has not had yet, as its demand allows;
///   later subscribers get only the completion.
/// - Values are delivered in the ``DeliveryContext`` given (the central's: its loop thread).
///
/// `send(_:)` and `send(completion:)` may be called from any thread. The subject keeps each live
/// subscription until it is cancelled or completed (as Combine's subjects do).
package final class StateSubject<Output: Sendable, Failure: Error>: Publisher, Sendable {
    let context: DeliveryContext
    let isDuplicate: @Sendable (Output, Output) -> Bool
    private let lock = Lock()
    private nonisolated(unsafe) var current: Output
    /// How many times the value was set: a subscription handed over meanwhile is told of the change.
    private nonisolated(unsafe) var changes: UInt64 = 0
    private let members = StreamMembers<StateSubscription<Output, Failure>>()

    /// A subject holding `value`.
    ///
    /// - Parameters:
    ///   - value: the current value.
    ///   - context: where subscribers are given values.
    ///   - isDuplicate: whether two values are the same state (the second is then not delivered).
    package init(
        _ value: Output, context: DeliveryContext = .callerThread,
        isDuplicate: @escaping @Sendable (Output, Output) -> Bool
    ) {
        self.context = context
        self.isDuplicate = isDuplicate
        current = value
    }

    /// The value now.
    package var value: Output {
        lock.withLock { current }
    }

    /// The number of live subscriptions.
    package var subscriptionCount: Int {
        members.count
    }

    /// Makes `value` the current value and tells the subscribers; ignored once the subject completed.
    ///
    /// - Parameter value: the new value.
    package func send(_ value: Output) {
        modify { $0 = value }
    }

    /// Changes the current value in place with `body` (run with the subject's lock held: it must not call
    /// out) and tells the subscribers; ignored once the subject completed.
    ///
    /// - Parameter body: changes the value.
    package func modify(_ body: (inout Output) -> Void) {
        guard !members.hasEnded else { return }
        lock.withLock {
            body(&current)
            changes &+= 1
        }
        for member in members.live { member.valueChanged() }
    }

    /// Ends the stream: each subscriber gets `completion` after the latest value it has not had yet.
    ///
    /// - Parameter completion: how the stream ends.
    package func send(completion: Subscribers.Completion<Failure>) {
        for member in members.end(completion) { member.finish(completion) }
    }

    /// Subscribes `subscriber`: its first demand gets the current value.
    ///
    /// - Parameter subscriber: the subscriber.
    package func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        // A subscriber that comes after the end gets only the completion.
        let subscription = StateSubscription(
            subject: self, downstream: AnySubscriber(subscriber), startsWithValue: !members.hasEnded)
        let changesBefore = lock.withLock { changes }
        subscriber.receive(subscription: subscription)
        members.register(subscription)
        // A change made before the subscription was registered told no one: its subscriber may already have
        // been given the value before it (its first demand delivers at once). It is told now; a value it
        // already has is not delivered again.
        if lock.withLock({ changes }) != changesBefore { subscription.valueChanged() }
    }
}

extension StateSubject where Output: Equatable {
    /// A subject holding `value`, whose subscribers are not given a value equal to the one they had last.
    ///
    /// - Parameters:
    ///   - value: the current value.
    ///   - context: where subscribers are given values.
    package convenience init(_ value: Output, context: DeliveryContext = .callerThread) {
        self.init(value, context: context, isDuplicate: ==)
    }
}
