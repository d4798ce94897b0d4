extension Subscribers {
    /// A subscriber that requests unlimited values and writes each one to a property of an object.
    ///
    /// The object is held strongly until the publisher completes or the subscriber is cancelled.
    public final class Assign<Root, Input>: Subscriber, Cancellable, CustomStringConvertible, CustomReflectable,
        CustomPlaygroundDisplayConvertible
    {
        /// `Assign` never fails.
        public typealias Failure = Never

        private let lock = Lock()
        private nonisolated(unsafe) var target: Root?
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription

        /// The property written to.
        public let keyPath: ReferenceWritableKeyPath<Root, Input>

        /// The object written to; `nil` once the subscriber has completed or been cancelled.
        public var object: Root? {
            lock.withLock { target }
        }

        /// Creates a subscriber that writes each value to `object[keyPath: keyPath]`.
        ///
        /// - Parameters:
        ///   - object: the object written to; `nil` once the subscriber has completed or been cancelled.
        ///   - keyPath: the property written to.
        public init(object: Root, keyPath: ReferenceWritableKeyPath<Root, Input>) {
            target = object
            self.keyPath = keyPath
        }

        /// `"Assign Root."` with the root's type name.
        public var description: String { "Assign \(Root.self)." }

        /// A mirror showing the object, the key path and the status of the upstream subscription, as
        /// Combine's does.
        public var customMirror: Mirror {
            let (object, status) = lock.withLock { () -> (Root?, SubscriptionLifecycle) in (target, self.status) }
            let children: [Mirror.Child] = [("object", object as Any), ("keyPath", keyPath), ("status", status)]
            return Mirror(self, children: children)
        }

        /// The description, for playgrounds.
        public var playgroundDescription: Any { description }

        /// Stores `subscription` and requests unlimited values; a second subscription is cancelled.
        ///
        /// - Parameter subscription: The subscription through which the subscriber requests values.
        public func receive(subscription: any Subscription) {
            let accepted = lock.withLock { status.accept(subscription) }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Writes `value` to the property; as in Combine, a value before the subscription or after the
        /// completion is ignored.
        ///
        /// - Parameter value: The value received.
        /// - Returns: The additional demand: none, as the subscriber asked for everything at once.
        public func receive(_ value: Input) -> Subscribers.Demand {
            let object = lock.withLock { status.isSubscribed ? target : nil }
            object?[keyPath: keyPath] = value
            return .none
        }

        /// Releases the object.
        ///
        /// - Parameter completion: How the publisher ended: finished, or failed with an error.
        public func receive(completion: Subscribers.Completion<Never>) {
            // Released after unlocking: releasing the object may run arbitrary deinit code.
            let released: (Root?, SubscriptionLifecycle) = lock.withLock {
                let released = (target, status)
                status = .terminal
                target = nil
                return released
            }
            _ = released
        }

        /// Cancels the subscription and releases the object.
        public func cancel() {
            let (upstream, released): ((any Subscription)?, Root?) = lock.withLock {
                let taken = (status.cancel(), target)
                target = nil
                return taken
            }
            withExtendedLifetime(released) { upstream?.cancel() }
        }
    }
}

extension Publisher where Failure == Never {
    /// Writes each value to `object[keyPath: keyPath]`.
    ///
    /// - Parameters:
    ///   - keyPath: The property each value is written to.
    ///   - object: The object whose property is written; kept until the subscription ends.
    /// - Returns: a cancellable that cancels the subscription; dropping it cancels too.
    public func assign<Root>(to keyPath: ReferenceWritableKeyPath<Root, Output>, on object: Root) -> AnyCancellable {
        let subscriber = Subscribers.Assign(object: object, keyPath: keyPath)
        subscribe(subscriber)
        return AnyCancellable(subscriber)
    }
}
