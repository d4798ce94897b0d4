extension Publishers {
    /// A publisher that calls closures when its subscription, values, completion, cancellation and
    /// requests go by, and otherwise republishes the upstream unchanged.
    ///
    /// The closures run on whatever thread the event happens on, before the event is passed on (values
    /// and completion to the downstream, requests and cancellation to the upstream). After the stream
    /// completes or is cancelled the closures are released and no longer called.
    public struct HandleEvents<Upstream: Publisher>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher whose events are observed.
        public let upstream: Upstream
        /// Called with the upstream's subscription when it arrives.
        public var receiveSubscription: ((any Subscription) -> Void)?
        /// Called with each value before the downstream receives it.
        public var receiveOutput: ((Upstream.Output) -> Void)?
        /// Called with the upstream's completion before the downstream receives it.
        public var receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Void)?
        /// Called when the downstream cancels.
        public var receiveCancel: (() -> Void)?
        /// Called with each demand the downstream asks for, through its subscription or as the result of
        /// receiving a value (when not `.none`).
        public var receiveRequest: ((Subscribers.Demand) -> Void)?

        /// Creates a publisher that reports the events of `upstream` to the given closures.
        ///
        /// - Parameters:
        ///   - upstream: the publisher whose events are observed.
        ///   - receiveSubscription: Called with the upstream's subscription when it arrives.
        ///   - receiveOutput: Called with each value before the downstream receives it.
        ///   - receiveCompletion: Called with the upstream's completion before the downstream receives it.
        ///   - receiveCancel: Called when the downstream cancels.
        ///   - receiveRequest: Called with each demand the downstream asks for, through its subscription or as the
        ///     result of receiving a value (when not `.none`).
        public init(
            upstream: Upstream,
            receiveSubscription: ((any Subscription) -> Void)? = nil,
            receiveOutput: ((Output) -> Void)? = nil,
            receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
            receiveCancel: (() -> Void)? = nil,
            receiveRequest: ((Subscribers.Demand) -> Void)?
        ) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
            self.receiveCancel = receiveCancel
            self.receiveRequest = receiveRequest
        }

        /// Subscribes `subscriber` to the upstream through an observing subscription.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S)
        where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.subscribe(Inner(self, downstream: subscriber))
        }
    }
}

extension Publishers.HandleEvents {
    /// The subscriber to the upstream and the subscription of the downstream.
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private let downstream: Downstream
        private let lock = Lock()
        private nonisolated(unsafe) var state = SubscriptionLifecycle.awaitingSubscription
        // The closures, released (set to nil) when the stream ends.
        private nonisolated(unsafe) var onSubscription: ((any Subscription) -> Void)?
        private nonisolated(unsafe) var onOutput: ((Input) -> Void)?
        private nonisolated(unsafe) var onCompletion: ((Subscribers.Completion<Failure>) -> Void)?
        private nonisolated(unsafe) var onCancel: (() -> Void)?
        private nonisolated(unsafe) var onRequest: ((Subscribers.Demand) -> Void)?

        init(_ parent: Publishers.HandleEvents<Upstream>, downstream: Downstream) {
            self.downstream = downstream
            onSubscription = parent.receiveSubscription
            onOutput = parent.receiveOutput
            onCompletion = parent.receiveCompletion
            onCancel = parent.receiveCancel
            onRequest = parent.receiveRequest
        }

        var description: String { "HandleEvents" }
        var customMirror: Mirror { Mirror(self, children: [:]) }
        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let handler = lock.withLock { onSubscription }
            handler?(subscription)
            let accepted = lock.withLock { state.accept(subscription) }
            if accepted {
                downstream.receive(subscription: self)
            } else {
                subscription.cancel()
            }
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            // As in Combine, a value before the subscription is reported and passed on; none is after the end.
            let handlers: (output: ((Input) -> Void)?, request: ((Subscribers.Demand) -> Void)?)? = lock.withLock {
                guard !state.isTerminal else { return nil }
                return (onOutput, onRequest)
            }
            guard let handlers else { return .none }
            handlers.output?(input)
            let demand = downstream.receive(input)
            if demand != .none {
                handlers.request?(demand)
            }
            return demand
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let handler: ((Subscribers.Completion<Failure>) -> Void)?? = lock.withLock {
                if state.isTerminal { return nil }
                let handler = onCompletion
                terminate()
                return .some(handler)
            }
            guard let handler else { return }
            handler?(completion)
            downstream.receive(completion: completion)
        }

        func request(_ demand: Subscribers.Demand) {
            // As in Combine, a request before the subscription is reported (and goes no further); none is
            // after the end, when the closures are released.
            let (handler, upstream) = lock.withLock { () -> (((Subscribers.Demand) -> Void)?, (any Subscription)?) in
                (onRequest, state.subscription)
            }
            handler?(demand)
            upstream?.request(demand)
        }

        func cancel() {
            // As in Combine, a cancel before the upstream's subscription is reported and otherwise forgotten:
            // the downstream gets this subscription only after the upstream's, so a downstream that follows
            // the contract cannot send it.
            let (handler, upstream) = lock.withLock { () -> ((() -> Void)?, (any Subscription)?) in
                let handler = onCancel
                guard let subscription = state.subscription else { return (handler, nil) }
                terminate()
                return (handler, subscription)
            }
            handler?()
            upstream?.cancel()
        }

        /// Ends the stream and releases the closures; called with the lock held.
        private func terminate() {
            state = .terminal
            onSubscription = nil
            onOutput = nil
            onCompletion = nil
            onCancel = nil
            onRequest = nil
        }
    }
}

extension Publisher {
    /// Calls the given closures when events happen on this publisher, and republishes it unchanged.
    ///
    /// - Parameters:
    ///   - receiveSubscription: called with the upstream's subscription.
    ///   - receiveOutput: called with each value, before it is passed downstream.
    ///   - receiveCompletion: called with the completion, before it is passed downstream.
    ///   - receiveCancel: called when the downstream cancels.
    ///   - receiveRequest: called with each demand the downstream asks for.
    /// - Returns: a publisher that emits, completes and fails exactly as this one.
    public func handleEvents(
        receiveSubscription: ((any Subscription) -> Void)? = nil,
        receiveOutput: ((Output) -> Void)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Void)? = nil,
        receiveCancel: (() -> Void)? = nil,
        receiveRequest: ((Subscribers.Demand) -> Void)? = nil
    ) -> Publishers.HandleEvents<Self> {
        Publishers.HandleEvents(
            upstream: self,
            receiveSubscription: receiveSubscription,
            receiveOutput: receiveOutput,
            receiveCompletion: receiveCompletion,
            receiveCancel: receiveCancel,
            receiveRequest: receiveRequest
        )
    }
}
