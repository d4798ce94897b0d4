extension Subscriptions {
    /// A subscription that ignores requests and cancellation: for publishers that complete at once.
    public static var empty: any Subscription {
        EmptySubscription.singleton
    }
}

/// The subscription behind ``Subscriptions/empty``.
internal final class EmptySubscription: Subscription, CustomStringConvertible, Sendable {
    static let singleton = EmptySubscription()

    var description: String { "Empty" }

    func request(_ demand: Subscribers.Demand) {}

    func cancel() {}
}
