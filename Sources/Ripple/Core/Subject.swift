/// A publisher that you drive by hand: values and a completion you send reach its subscribers.
///
/// Ripple's subjects accept `send` from any thread, also concurrently and re-entrantly.
public protocol Subject<Output, Failure>: AnyObject, Publisher {
    /// Delivers `value` to every subscriber that has demand for it.
    ///
    /// - Parameter value: The value to deliver.
    func send(_ value: Output)

    /// Ends the subject: every subscriber receives `completion`, later sends are ignored, and later
    /// subscribers receive `completion` at once.
    ///
    /// - Parameter completion: How the subject ends: finished, or failed with an error.
    func send(completion: Subscribers.Completion<Failure>)

    /// Tells the subject about an upstream subscription it is attached to; the subject requests
    /// unlimited demand from it.
    ///
    /// - Parameter subscription: The upstream subscription the subject is attached to.
    func send(subscription: any Subscription)
}

extension Subject where Output == Void {
    /// Sends a `Void` value.
    @inlinable
    public func send() {
        send(())
    }
}

extension Publisher {
    /// Attaches `subject` to this publisher: everything published is sent into the subject.
    ///
    /// - Parameter subject: The subject to send into.
    /// - Returns: a cancellable that detaches the subject.
    @inlinable
    @inline(__always)  // with Multicast.connect(): see there
    public func subscribe<S: Subject>(_ subject: S) -> AnyCancellable where S.Output == Output, S.Failure == Failure {
        let subscriber = SubjectSubscriber(subject)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}
