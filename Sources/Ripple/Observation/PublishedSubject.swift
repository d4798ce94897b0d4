/// The storage of one `@Published` property, shared by every copy of its ``Published`` wrapper: the
/// current value, the subject its projected publisher attaches subscribers to, the object's
/// `objectWillChange` publisher once installed, and the subscriptions `assign(to:)` made to it.
///
/// Setting the property signals `objectWillChange` first, then delivers the new value to the subscribers,
/// and only then stores it, so that during both the property still reads the old value (as in Combine:
/// the publisher publishes in the property's `willSet`).
///
/// The subject (a ``SubjectCore`` whose subscriptions describe themselves as `"PublishedSubject"`) is made
/// when the projected publisher is first used, so that a property nobody observes costs one object.
internal final class PublishedSubject<Value>: Sendable {
    typealias Core = SubjectCore<Value, Never, LatestValueReplay<Value>>

    private let lock = Lock()
    private nonisolated(unsafe) var value: Value
    private nonisolated(unsafe) var core: Core?
    private nonisolated(unsafe) var objectWillChange: ObservableObjectPublisher?
    private nonisolated(unsafe) var upstreams: [any Subscription] = []

    init(_ value: Value) {
        self.value = value
    }

    deinit {
        for upstream in upstreams { upstream.cancel() }
    }

    /// The property's value.
    var currentValue: Value {
        lock.withLock { value }
    }

    /// The subject subscribers of the projected publisher attach to, made on first use with the current
    /// value.
    var subject: Core {
        lock.withLock {
            if let core { return core }
            let made = Core(name: "PublishedSubject", replay: LatestValueReplay(value: value))
            core = made
            return made
        }
    }

    /// Sets the property: signals `objectWillChange`, delivers `newValue` to the subscribers, then stores it.
    func set(_ newValue: Value) {
        let willChange = lock.withLock { objectWillChange }
        willChange?.send()
        // Without a subject yet, the value is stored in the same critical section that finds none, so that a
        // subject made meanwhile starts from it.
        let subject = lock.withLock { () -> Core? in
            if let core { return core }
            value = newValue
            return nil
        }
        guard let subject else { return }
        subject.send(newValue)
        lock.withLock { value = newValue }
    }

    /// Keeps `subscription` (made by `assign(to:)`) until the property goes away, and requests every value.
    func keep(_ subscription: any Subscription) {
        lock.withLock { upstreams.append(subscription) }
        subscription.request(.unlimited)
    }

    /// The `objectWillChange` publisher the property signals: the one it has, or else `candidate`, kept from
    /// now on.
    func installObjectWillChange(
        _ candidate: @autoclosure () -> ObservableObjectPublisher
    ) -> ObservableObjectPublisher {
        lock.withLock {
            if let objectWillChange { return objectWillChange }
            let installed = candidate()
            objectWillChange = installed
            return installed
        }
    }
}

/// What ``ObservableObject``'s synthesised `objectWillChange` finds among an object's stored properties.
internal protocol PublishedProperty {
    /// The `objectWillChange` publisher this property signals before it changes: the one it has, or else
    /// `candidate`, which it keeps from now on.
    func installObjectWillChange(
        _ candidate: @autoclosure () -> ObservableObjectPublisher
    ) -> ObservableObjectPublisher
}
