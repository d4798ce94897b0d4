/// A subject that relays the values sent to it to every subscriber that has demand at that moment.
///
/// Values sent while a subscriber has no outstanding demand are not delivered to that subscriber, and
/// values sent before a subscriber attaches are not replayed. After a completion, later subscribers
/// receive that completion at once.
///
/// `send` is safe from any thread, concurrently and re-entrantly; deliveries to subscribers never
/// overlap and keep the order of the sends (see ``Subject``). Its subscriptions describe themselves as
/// `"PassthroughSubject"`.
public final class PassthroughSubject<Output, Failure: Error>: Subject, Sendable {
    @usableFromInline let core: SubjectCore<Output, Failure, NoReplay<Output>>

    /// Creates a subject with no subscribers.
    @inlinable public init() {
        core = SubjectCore(name: "PassthroughSubject", replay: NoReplay())
    }

    deinit {
        core.cancelUpstreams()
    }

    /// Attaches `subscriber`; after a completion it receives that completion at once.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.subscribe(subscriber, parent: self)
    }

    /// Delivers `value` to every subscriber with outstanding demand. Ignored after a completion.
    ///
    /// - Parameter value: The value to deliver.
    @inlinable public func send(_ value: Output) {
        core.send(value)
    }

    /// Ends the subject: every subscriber receives `completion`; later sends are ignored.
    ///
    /// - Parameter completion: How the subject ends: finished, or failed with an error.
    @inlinable public func send(completion: Subscribers.Completion<Failure>) {
        core.send(completion: completion)
    }

    /// Keeps `subscription` (an upstream this subject was attached to with `subscribe(_:)`), requests
    /// unlimited values from it once any subscriber has demand, and cancels it when the subject goes away.
    ///
    /// - Parameter subscription: The upstream subscription the subject is attached to.
    @inlinable public func send(subscription: any Subscription) {
        core.send(subscription: subscription)
    }
}
