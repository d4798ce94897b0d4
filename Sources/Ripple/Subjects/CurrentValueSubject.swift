/// A subject that holds a current value, hands it to each subscriber first, and relays every later value.
///
/// A subscriber receives the current value as soon as it has demand, then each value sent while it has
/// demand; if values are sent while it has none, it receives the latest of them when it next asks. After
/// a completion, later subscribers receive that completion at once and `send` no longer changes
/// ``value``.
///
/// `send` and ``value`` are safe from any thread, concurrently and re-entrantly; deliveries never overlap
/// and keep the order of the sends. Its subscriptions describe themselves as `"CurrentValueSubject"`.
public final class CurrentValueSubject<Output, Failure: Error>: Subject, Sendable {
    @usableFromInline let core: SubjectCore<Output, Failure, LatestValueReplay<Output>>

    /// The current value; setting it sends the new value to the subscribers. After a completion, setting it
    /// still changes it (nothing is sent), as in Combine.
    public var value: Output {
        @inlinable get { core.lock.withLock { core.replay.value } }
        @inlinable set { core.send(newValue, keepingAfterCompletion: true) }
    }

    /// Creates a subject whose current value is `value`.
    ///
    /// - Parameter value: The first current value.
    @inlinable public init(_ value: Output) {
        core = SubjectCore(
            name: "CurrentValueSubject", replay: LatestValueReplay(value: value), requestsUpstreamAtOnce: true)
    }

    deinit {
        core.cancelUpstreams()
    }

    /// Attaches `subscriber`; it receives the current value once it has demand. After a completion it
    /// receives that completion at once.
    ///
    /// - Parameter subscriber: The subscriber to attach.
    @inlinable public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        core.subscribe(subscriber, parent: self)
    }

    /// Makes `value` the current value and delivers it to every subscriber with demand. Ignored after a
    /// completion (unlike setting ``value``, as in Combine).
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
    /// unlimited values from it at once (as Combine's does), and cancels it when the subject goes away.
    ///
    /// - Parameter subscription: The upstream subscription the subject is attached to.
    @inlinable public func send(subscription: any Subscription) {
        core.send(subscription: subscription)
    }
}
