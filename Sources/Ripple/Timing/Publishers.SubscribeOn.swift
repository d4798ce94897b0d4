extension Publishers {
    /// A publisher that subscribes to its upstream, and sends it requests and cancellation, on a scheduler.
    ///
    /// Subscribing schedules the subscription to the upstream on ``scheduler``; the subscriber receives
    /// its subscription when that runs. Each `request` and the `cancel` are scheduled on ``scheduler``
    /// too, and reach the upstream one at a time, in order. Values and the completion pass through on
    /// whatever thread the upstream sends them. Its subscription describes itself as `"SubscribeOn"`.
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        /// The upstream's output.
        public typealias Output = Upstream.Output
        /// The upstream's failure.
        public typealias Failure = Upstream.Failure

        /// The publisher subscribed to on the scheduler.
        public let upstream: Upstream
        /// The scheduler that subscribes, requests and cancels.
        public let scheduler: Context
        /// The options the subscription, requests and cancellation are scheduled with.
        public let options: Context.SchedulerOptions?

        /// A publisher that subscribes to `upstream` on `scheduler`.
        ///
        /// - Parameters:
        ///   - upstream: the publisher subscribed to on the scheduler.
        ///   - scheduler: the scheduler that subscribes, requests and cancels.
        ///   - options: the options the subscription, requests and cancellation are scheduled with.
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        /// Schedules the subscription of `subscriber` to the upstream on the scheduler.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = Inner(downstream: subscriber, scheduler: scheduler, options: options)
            let upstream = self.upstream
            scheduler.schedule(options: options) {
                upstream.subscribe(inner)
            }
        }
    }
}

extension Publisher {
    /// Subscribes to this publisher, and sends it requests and cancellation, on `scheduler`.
    ///
    /// Use it when subscribing or requesting starts work that must not run on the caller's thread.
    /// Values and the completion are not moved (see ``receive(on:options:)`` for that).
    ///
    /// - Parameters:
    ///   - scheduler: where the subscription, requests and cancellation happen.
    ///   - options: scheduler options for each of them.
    /// - Returns: a publisher that emits the same values and completion.
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
        -> Publishers.SubscribeOn<Self, S>
    {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}

extension Publishers.SubscribeOn {
    /// Passes values and the completion through; schedules requests and cancellation, and performs them
    /// one at a time (a request the upstream triggers re-entrantly waits for the one in progress).
    private final class Inner<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
        CustomReflectable, CustomPlaygroundDisplayConvertible
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure {
        typealias Input = Upstream.Output
        typealias Failure = Upstream.Failure

        private enum UpstreamCall {
            case request(Subscribers.Demand)
            case cancel
        }

        private let scheduler: Context
        private let options: Context.SchedulerOptions?
        private let downstream: Downstream
        private let lock = Lock()
        /// `pendingTerminal(upstream)` once the downstream cancelled, while the upstream's cancellation waits
        /// on the scheduler.
        private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
        private nonisolated(unsafe) var calls = SerialSignalQueue<UpstreamCall>()

        init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.scheduler = scheduler
            self.options = options
            self.downstream = downstream
        }

        var description: String { "SubscribeOn" }

        var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

        var playgroundDescription: Any { description }

        func receive(subscription: any Subscription) {
            let accepted = lock.withLock { status.accept(subscription) }
            guard accepted else {
                subscription.cancel()
                return
            }
            downstream.receive(subscription: self)
        }

        func receive(_ input: Input) -> Subscribers.Demand {
            let isSubscribed = lock.withLock { status.isSubscribed }
            guard isSubscribed else { return .none }
            return downstream.receive(input)
        }

        func receive(completion: Subscribers.Completion<Failure>) {
            let accepted = lock.withLock { () -> Bool in
                guard status.isSubscribed else { return false }
                status = .terminal
                calls.discardPending()
                return true
            }
            if accepted { downstream.receive(completion: completion) }
        }

        func request(_ demand: Subscribers.Demand) {
            let isSubscribed = lock.withLock { status.isSubscribed }
            guard isSubscribed else { return }
            scheduler.schedule(options: options) { self.perform(.request(demand)) }
        }

        func cancel() {
            let accepted = lock.withLock { () -> Bool in
                guard let upstream = status.subscription else { return false }
                status = .pendingTerminal(upstream)
                return true
            }
            guard accepted else { return }
            scheduler.schedule(options: options) { self.perform(.cancel) }
        }

        /// Runs a scheduled call: a request while subscribed, or made before the cancel and run before it (as
        /// in Combine, the calls reach the upstream in the order they were made); the cancellation once.
        private func perform(_ call: UpstreamCall) {
            let work = lock.withLock { () -> (upstream: any Subscription, first: UpstreamCall)? in
                switch (status, call) {
                case (.subscribed(let upstream), .request), (.pendingTerminal(let upstream?), .request):
                    return calls.offer(call).map { (upstream, $0) }
                case (.pendingTerminal(let upstream?), .cancel):
                    status = .terminal
                    return calls.offer(call).map { (upstream, $0) }
                default:
                    return nil
                }
            }
            guard let work else { return }
            var call = work.first
            while true {
                switch call {
                case .request(let demand): work.upstream.request(demand)
                case .cancel: work.upstream.cancel()
                }
                guard let next = lock.withLock({ calls.next() }) else { return }
                call = next
            }
        }
    }
}
