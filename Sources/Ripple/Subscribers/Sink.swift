extension Subscribers {
    /// A subscriber that requests unlimited values and hands each value and the completion to closures.
    ///
    /// Cancelling the sink cancels its subscription and releases both closures, so a closure that
    /// captures its owner does not keep it alive after cancellation or completion.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        private enum Status {
            case awaitingSubscription
            case subscribed(any Subscription)
            case terminal
        }

        /// The two closures, in one object so that the per-value path copies a single reference out of
        /// the lock (no closure reabstraction, no allocation).
        @usableFromInline
        final class Handlers {
            @usableFromInline let receiveValue: (Input) -> Void
            @usableFromInline let receiveCompletion: (Subscribers.Completion<Failure>) -> Void
            @usableFromInline init(
                receiveValue: @escaping (Input) -> Void,
                receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
            ) {
                self.receiveValue = receiveValue
                self.receiveCompletion = receiveCompletion
            }
        }

        @usableFromInline let lock = Lock()
        private nonisolated(unsafe) var status = Status.awaitingSubscription
        /// The closures until the sink ends; released then, so that a closure capturing its owner does
        /// not keep it alive. Guarded by `lock`, so the dynamic exclusivity check is skipped.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var handlers: Handlers?

        /// The closure called with each value (a no-op once the sink has ended).
        public var receiveValue: (Input) -> Void {
            lock.withLock { handlers }?.receiveValue ?? { _ in }
        }

        /// The closure called with the completion (a no-op once the sink has ended).
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            lock.withLock { handlers }?.receiveCompletion ?? { _ in }
        }

        /// Creates a sink that calls `receiveCompletion` once with the completion and `receiveValue` with
        /// each value.
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            handlers = Handlers(receiveValue: receiveValue, receiveCompletion: receiveCompletion)
        }

        /// `"Sink"`.
        public var description: String { "Sink" }

        /// A mirror naming the two closures.
        public var customMirror: Mirror {
            Mirror(self, children: ["receiveCompletion": receiveCompletion, "receiveValue": receiveValue])
        }

        /// The description, for playgrounds.
        public var playgroundDescription: Any { description }

        /// Stores `subscription` and requests unlimited values; a second subscription is cancelled.
        public func receive(subscription: any Subscription) {
            let accepted = lock.withLock { () -> Bool in
                guard case .awaitingSubscription = status else { return false }
                status = .subscribed(subscription)
                return true
            }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Calls the value closure; returns `.none` (the demand is already unlimited).
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            let handlers = lock.withLock { self.handlers }
            handlers?.receiveValue(value)
            return .none
        }

        /// Calls the completion closure, then releases both closures.
        public func receive(completion: Subscribers.Completion<Failure>) {
            let handlers: Handlers? = lock.withLock {
                status = .terminal
                let handlers = self.handlers
                self.handlers = nil
                return handlers
            }
            handlers?.receiveCompletion(completion)
        }

        /// Cancels the subscription and releases both closures; later calls do nothing.
        public func cancel() {
            // The closures are released after unlocking: releasing them may run arbitrary deinit code.
            let (subscription, released): ((any Subscription)?, Handlers?) = lock.withLock {
                let current = status
                let released = handlers
                status = .terminal
                handlers = nil
                if case .subscribed(let subscription) = current { return (subscription, released) }
                return (nil, released)
            }
            withExtendedLifetime(released) { subscription?.cancel() }
        }
    }
}

extension Publisher {
    /// Subscribes with a ``Subscribers/Sink`` that requests unlimited values.
    ///
    /// - Parameters:
    ///   - receiveCompletion: called once when the publisher finishes or fails.
    ///   - receiveValue: called with each value.
    /// - Returns: a cancellable that cancels the subscription; dropping it cancels too.
    @inlinable
    public func sink(
        receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
        receiveValue: @escaping (Output) -> Void
    ) -> AnyCancellable {
        let sink = Subscribers.Sink<Output, Failure>(receiveCompletion: receiveCompletion, receiveValue: receiveValue)
        subscribe(sink)
        return AnyCancellable(sink)
    }
}

extension Publisher where Failure == Never {
    /// Subscribes with a ``Subscribers/Sink`` that calls `receiveValue` with each value.
    ///
    /// - Returns: a cancellable that cancels the subscription; dropping it cancels too.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
