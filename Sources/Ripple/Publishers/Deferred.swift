/// A publisher that creates a fresh publisher for each subscriber, when it subscribes.
///
/// Nothing is created until a subscriber attaches; then ``createPublisher`` runs and the subscriber is
/// attached to its result, which emits, completes and fails as it would on its own.
public struct Deferred<DeferredPublisher: Publisher>: Publisher {
    /// The output of the created publishers.
    public typealias Output = DeferredPublisher.Output
    /// The failure of the created publishers.
    public typealias Failure = DeferredPublisher.Failure

    /// The closure run once per subscriber to create the publisher it attaches to.
    public let createPublisher: () -> DeferredPublisher

    /// Creates a publisher that runs `createPublisher` for each new subscriber.
    ///
    /// - Parameter createPublisher: Makes the publisher each new subscriber is attached to.
    public init(createPublisher: @escaping () -> DeferredPublisher) {
        self.createPublisher = createPublisher
    }

    /// Creates a publisher with ``createPublisher`` and attaches `subscriber` to it.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        createPublisher().subscribe(subscriber)
    }
}
