extension Subscriptions {
    /// A subscription that ignores requests and cancellation: for publishers that complete at once.
    public static var empty: any Subscription {
        EmptySubscription.singleton
    }
}

/// The subscription behind ``Subscriptions/empty``.
internal final class EmptySubscription: Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, Sendable
{
    static let singleton = EmptySubscription()

    var description: String { "Empty" }

    /// No children, as in Combine.
    var customMirror: Mirror { Mirror(self, children: [:]) }

    var playgroundDescription: Any { description }

    func request(_ demand: Subscribers.Demand) {}

    func cancel() {}
}
