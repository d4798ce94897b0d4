/// The state of an operator's upstream subscription as its `customMirror` shows it (Combine's mirrors
/// have a `status` child of this shape).
@usableFromInline
internal enum ReflectedStatus: CustomStringConvertible {
    /// No subscription has arrived yet.
    case awaitingSubscription
    /// Subscribed to the given upstream subscription.
    case subscribed(any Subscription)
    /// Completed or cancelled.
    case terminal

    /// The status of an operator that is `awaiting` its subscription, or else holds `upstream` (`nil` once it
    /// ended).
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

    @usableFromInline
    var description: String {
        switch self {
        case .awaitingSubscription: "awaitingSubscription"
        case .subscribed(let subscription): "subscribed(\(subscription))"
        case .terminal: "terminal"
        }
    }
}
