/// Where an operator stands with its upstream subscription: the one lifecycle every operator of Ripple keeps.
///
/// An operator starts out waiting for its subscription, holds it while subscribed, and ends (the upstream
/// completed, or the downstream cancelled). Some operators still owe the downstream something after the
/// upstream has ended — a completion that waits on a scheduler, buffered values, a result that waits for
/// demand — and spend that time in ``pendingTerminal(_:)``. What an operator keeps beside its lifecycle (a
/// demand requested before the subscription, the time of the last value, a result) lives in fields of its
/// own, next to this value and under the same lock.
///
/// The value is plain data: the operator guards it with its own ``Lock`` (or confines it to the upstream's
/// serialised signals), and it never calls the subscription it holds. The transitions return what the
/// caller is to call after leaving the lock.
///
/// Its description is Combine's, so an operator's mirror may show it as its `status` child.
@usableFromInline
internal enum SubscriptionLifecycle: CustomStringConvertible {
    /// No subscription has arrived yet.
    case awaitingSubscription
    /// The upstream subscription arrived and is live.
    case subscribed(any Subscription)
    /// The upstream has ended (it completed, or the downstream cancelled and the upstream's cancellation is
    /// still on its way), but the operator still owes the downstream a signal. Holds the upstream subscription
    /// where the operator still calls it meanwhile (to request more, or to cancel it later), else `nil`.
    case pendingTerminal((any Subscription)?)
    /// Completed or cancelled: nothing more passes.
    case terminal

    /// The lifecycle of an operator that is `awaiting` its subscription, or else holds `upstream` (`nil` once
    /// it has ended).
    ///
    /// - Parameters:
    ///   - awaiting: whether no subscription has arrived yet.
    ///   - upstream: the subscription held, if any.
    @inlinable
    init(awaiting: Bool, _ upstream: (any Subscription)?) {
        if awaiting {
            self = .awaitingSubscription
        } else if let upstream {
            self = .subscribed(upstream)
        } else {
            self = .terminal
        }
    }

    /// Whether no subscription has arrived yet.
    @inlinable
    var isAwaitingSubscription: Bool {
        if case .awaitingSubscription = self { return true }
        return false
    }

    /// Whether the upstream subscription is live.
    @inlinable
    var isSubscribed: Bool {
        if case .subscribed = self { return true }
        return false
    }

    /// Whether the lifecycle has ended.
    @inlinable
    var isTerminal: Bool {
        if case .terminal = self { return true }
        return false
    }

    /// The upstream subscription while it is live; `nil` in every other state.
    @inlinable
    var subscription: (any Subscription)? {
        if case .subscribed(let subscription) = self { return subscription }
        return nil
    }

    /// Takes `subscription` if none has arrived yet.
    ///
    /// - Parameter subscription: the subscription the upstream handed over.
    /// - Returns: `true` if it is now the live one; `false` if the lifecycle was past waiting (then it is
    ///   unchanged, and the caller cancels `subscription`, as Combine does with a second subscription).
    @inlinable
    mutating func accept(_ subscription: any Subscription) -> Bool {
        guard case .awaitingSubscription = self else { return false }
        self = .subscribed(subscription)
        return true
    }

    /// Ends the lifecycle on the upstream's completion.
    ///
    /// - Returns: `false` if it had already ended (the completion is then not passed on), else `true`.
    @inlinable
    mutating func complete() -> Bool {
        if case .terminal = self { return false }
        self = .terminal
        return true
    }

    /// Ends the lifecycle on a cancel.
    ///
    /// - Returns: the subscription to cancel once the lock is given back: the live one, or `nil` if there was
    ///   none (not subscribed yet, pending or ended).
    @inlinable
    mutating func cancel() -> (any Subscription)? {
        let previous = self
        self = .terminal
        return previous.subscription
    }

    /// Ends the lifecycle on a cancel if the subscription is live; forgets a cancel that comes before it.
    ///
    /// This is Combine's rule for operators that hand their own subscription downstream only once the
    /// upstream's has arrived: a cancel before that cannot come from a downstream that follows the contract,
    /// and Combine's operators then take the late subscription as if nothing had happened.
    ///
    /// - Returns: the subscription to cancel once the lock is given back, or `nil` if there was none live
    ///   (the lifecycle is then unchanged).
    @inlinable
    mutating func cancelIfSubscribed() -> (any Subscription)? {
        guard case .subscribed(let subscription) = self else { return nil }
        self = .terminal
        return subscription
    }

    /// `awaitingSubscription`, `subscribed(…)`, `pendingTerminal(…)` or `terminal`, as Combine's mirrors print
    /// their status.
    @usableFromInline
    var description: String {
        switch self {
        case .awaitingSubscription: "awaitingSubscription"
        case .subscribed(let subscription): "subscribed(\(subscription))"
        case .pendingTerminal(let subscription?): "pendingTerminal(\(subscription))"
        case .pendingTerminal(nil): "pendingTerminal"
        case .terminal: "terminal"
        }
    }
}
