import Synchronization

extension Subscribers {
    /// A subscriber that requests unlimited values and hands each value and the completion to closures.
    ///
    /// Cancelling the sink cancels its subscription and releases both closures, so a closure that
    /// captures its owner does not keep it alive after cancellation or completion.
    public final class Sink<Input, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    {
        /// The two closures.
        @usableFromInline
        struct Handlers {
            @usableFromInline let receiveValue: (Input) -> Void
            @usableFromInline let receiveCompletion: (Subscribers.Completion<Failure>) -> Void
            @inlinable init(
                receiveValue: @escaping (Input) -> Void,
                receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void
            ) {
                self.receiveValue = receiveValue
                self.receiveCompletion = receiveCompletion
            }
        }

        /// Where the sink keeps its closures until it ends. Noncopyable, so that the value path calls the
        /// closure where it is stored: a copyable field of a class is copied (its closure context retained
        /// and released) around every call that might change it, and a separate object holding the closures
        /// would cost one more allocation per sink.
        @usableFromInline
        struct HandlerSlot: ~Copyable {
            /// The closures; `nil` once the sink has ended and released them.
            @usableFromInline var handlers: Handlers?

            @inlinable init(_ handlers: Handlers) {
                self.handlers = handlers
            }

            /// Calls the value closure in place (a no-op once released).
            @inlinable func receive(_ value: Input) {
                handlers?.receiveValue(value)
            }
        }

        /// Guards `status` and `slot`'s writes.
        @usableFromInline let lock = Lock()
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var status = SubscriptionLifecycle
            .awaitingSubscription
        /// The closures until the sink ends; released then, so that a closure capturing its owner does not
        /// keep it alive. Written only under `lock`, and only by the thread that releases the closures, which
        /// it does only while no value is being delivered (see `delivery`); so the value path reads it
        /// without the lock, in place. Its accesses skip the dynamic exclusivity check.
        @exclusivity(unchecked) @usableFromInline nonisolated(unsafe) var slot: HandlerSlot
        /// ``SinkDelivery`` bits: a value is being delivered, and the sink has ended. Whoever ends the sink
        /// while no value is being delivered releases the handlers; if a delivery is running, the
        /// delivering thread releases them when it finishes. So the value path costs two atomic operations
        /// and neither takes the lock nor retains the closures.
        @usableFromInline let delivery = Atomic<UInt8>(0)

        /// The closure called with each value (a no-op once the sink has ended).
        public var receiveValue: (Input) -> Void {
            lock.withLock { slot.handlers }?.receiveValue ?? { _ in }
        }

        /// The closure called with the completion (a no-op once the sink has ended).
        public var receiveCompletion: (Subscribers.Completion<Failure>) -> Void {
            lock.withLock { slot.handlers }?.receiveCompletion ?? { _ in }
        }

        /// Creates a sink that calls `receiveCompletion` once with the completion and `receiveValue` with
        /// each value.
        ///
        /// - Parameters:
        ///   - receiveCompletion: the closure called with the completion (a no-op once the sink has ended).
        ///   - receiveValue: the closure called with each value (a no-op once the sink has ended).
        @inlinable
        public init(
            receiveCompletion: @escaping (Subscribers.Completion<Failure>) -> Void,
            receiveValue: @escaping (Input) -> Void
        ) {
            slot = HandlerSlot(Handlers(receiveValue: receiveValue, receiveCompletion: receiveCompletion))
        }

        /// `"Sink"`.
        public var description: String { "Sink" }

        /// A mirror without children, as Combine's.
        public var customMirror: Mirror {
            Mirror(self, children: EmptyCollection<Mirror.Child>())
        }

        /// The description, for playgrounds.
        public var playgroundDescription: Any { description }

        /// Stores `subscription` and requests unlimited values; a second subscription is cancelled.
        ///
        /// Always inlined into the publisher's `receive(subscriber:)`, where the subscription's concrete type
        /// is known: the `request(.unlimited)` below is then a direct call of that subscription's own
        /// `request`, specialised for this sink (a synchronous source delivers everything inside it), rather
        /// than a call through the `Subscription` existential into unspecialised generic code.
        ///
        /// - Parameter subscription: The subscription through which the subscriber requests values.
        @inlinable @inline(__always)
        public func receive(subscription: any Subscription) {
            let accepted = lock.withLock { status.accept(subscription) }
            if accepted {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
        }

        /// Calls the value closure; returns `.none` (the demand is already unlimited).
        ///
        /// - Parameter value: The value received.
        /// - Returns: The additional demand: none, as the subscriber asked for everything at once.
        @inlinable
        public func receive(_ value: Input) -> Subscribers.Demand {
            let before = delivery.bitwiseOr(SinkDelivery.delivering, ordering: .acquiring).oldValue
            if before & SinkDelivery.ended == 0 {
                slot.receive(value)
            }
            let after = delivery.bitwiseAnd(~SinkDelivery.delivering, ordering: .acquiringAndReleasing).oldValue
            if before & SinkDelivery.ended == 0, after & SinkDelivery.ended != 0 {
                // The sink ended while this value was being delivered; releasing was left to this thread.
                releaseHandlers()
            }
            return .none
        }

        /// Starts a run of values that one thread delivers in a row (a synchronous source's loop): the
        /// "delivering" bit is set once for the whole run instead of once per value, so a value of the run
        /// costs a plain load of the state and the closure call. Returns nil when the sink has ended (then
        /// the run is over at once). Every run that started must be ended with ``endRun()`` before the
        /// deliverer calls anything else of the sink (its completion, or `receive(_:)`).
        @inlinable
        func beginRun() -> Run? {
            let before = delivery.bitwiseOr(SinkDelivery.delivering, ordering: .acquiring).oldValue
            // Nothing releases the closures while the delivering bit is set, so they are read without the lock.
            guard before & SinkDelivery.ended == 0, let handlers = slot.handlers else {
                endRun(startedWith: before)
                return nil
            }
            return Run(sink: self, handlers: handlers)
        }

        /// Ends the run ``beginRun()`` started.
        @inlinable
        func endRun() {
            endRun(startedWith: 0)
        }

        /// Clears the delivering bit; releases the closures if the sink ended during the run (unless it had
        /// ended before it, `startedWith`, in which case whoever ended it released them).
        @inlinable
        func endRun(startedWith before: UInt8) {
            let after = delivery.bitwiseAnd(~SinkDelivery.delivering, ordering: .acquiringAndReleasing).oldValue
            if before & SinkDelivery.ended == 0, after & SinkDelivery.ended != 0 {
                releaseHandlers()
            }
        }

        /// A run of values delivered by one thread (see ``beginRun()``): it holds a copy of the closures for
        /// the run's length (one retain per run, and a closure the loop can keep in registers).
        @usableFromInline
        struct Run {
            @usableFromInline let sink: Sink
            @usableFromInline let handlers: Handlers

            @inlinable init(sink: Sink, handlers: Handlers) {
                self.sink = sink
                self.handlers = handlers
            }

            /// Calls the value closure unless the sink has ended (a cancellation during the run); returns
            /// `.none`, as ``Subscribers/Sink/receive(_:)`` does.
            @inlinable
            func receive(_ value: Input) -> Subscribers.Demand {
                if sink.delivery.load(ordering: .acquiring) & SinkDelivery.ended == 0 {
                    handlers.receiveValue(value)
                }
                return .none
            }
        }

        /// Calls the completion closure, then releases both closures.
        ///
        /// - Parameter completion: How the publisher ended: finished, or failed with an error.
        @inlinable
        public func receive(completion: Subscribers.Completion<Failure>) {
            let before = delivery.bitwiseOr(SinkDelivery.ended, ordering: .acquiringAndReleasing).oldValue
            let handlers: Handlers? = lock.withLock {
                status = .terminal
                return takeHandlers(endedWith: before)
            }
            handlers?.receiveCompletion(completion)
        }

        /// Cancels the subscription and releases both closures; later calls do nothing.
        @inlinable
        public func cancel() {
            let before = delivery.bitwiseOr(SinkDelivery.ended, ordering: .acquiringAndReleasing).oldValue
            let (subscription, handlers) = lock.withLock { (status.cancel(), takeHandlers(endedWith: before)) }
            // The closures are released after the subscription is cancelled (as they were before this
            // sink ended, they may be what keeps the subscription's owner alive).
            withExtendedLifetime(handlers) { subscription?.cancel() }
        }

        /// What the thread that has just set the ended bit (whose previous bits were `before`) holds of the
        /// closures: nothing if the sink had already ended; else the closures, moved out of the slot unless a
        /// value is being delivered, in which case they are copied and the delivering thread releases the
        /// slot's when it finishes. Lock held.
        @inlinable
        func takeHandlers(endedWith before: UInt8) -> Handlers? {
            guard before & SinkDelivery.ended == 0 else { return nil }
            return before & SinkDelivery.delivering == 0 ? slot.handlers.take() : slot.handlers
        }

        /// Drops the handlers (a delivery that the sink's end overlapped has finished); they are released
        /// after the lock, since releasing a closure may run arbitrary deinit code.
        @inlinable
        func releaseHandlers() {
            let released: Handlers? = lock.withLock { slot.handlers.take() }
            withExtendedLifetime(released) {}
        }
    }
}

/// The bits of a ``Subscribers/Sink``'s delivery state.
@usableFromInline
internal enum SinkDelivery {
    /// A value is being handed to the value closure.
    @inlinable static var delivering: UInt8 { 1 }
    /// The sink completed or was cancelled.
    @inlinable static var ended: UInt8 { 2 }
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
    /// - Parameter receiveValue: Called with each value.
    /// - Returns: a cancellable that cancels the subscription; dropping it cancels too.
    @inlinable
    public func sink(receiveValue: @escaping (Output) -> Void) -> AnyCancellable {
        sink(receiveCompletion: { _ in }, receiveValue: receiveValue)
    }
}
