import Ripple

/// A subscriber whose demand the test controls: it asks for nothing on its own (unless told an initial
/// demand), records every value and the completion with the thread facts the test asks about, and
/// requests exactly what the test releases.
final class SlowSubscriber<Input, Failure: Error>: Subscriber, Sendable {
    private let lock = Lock()
    nonisolated(unsafe) private var subscription: (any Subscription)?
    nonisolated(unsafe) private var recorded: [Input] = []
    nonisolated(unsafe) private var ended: Subscribers.Completion<Failure>?
    nonisolated(unsafe) private var offThread = 0
    private let initialDemand: Subscribers.Demand
    private let isExpectedThread: @Sendable () -> Bool
    /// Runs inside `receive(_:)`, before the subscriber returns (to act re-entrantly).
    nonisolated(unsafe) private let onValue: ((Input) -> Void)?

    /// A subscriber asking for `initialDemand` at first, that counts deliveries made where
    /// `isExpectedThread` is false, and runs `onValue` inside each `receive(_:)`.
    init(
        initialDemand: Subscribers.Demand = .none, isExpectedThread: @escaping @Sendable () -> Bool = { true },
        onValue: ((Input) -> Void)? = nil
    ) {
        self.initialDemand = initialDemand
        self.isExpectedThread = isExpectedThread
        self.onValue = onValue
    }

    /// The values received so far.
    var values: [Input] { lock.withLock { recorded } }
    /// The completion, once received.
    var completion: Subscribers.Completion<Failure>? { lock.withLock { ended } }
    /// How many values and completions arrived on another thread than the expected one.
    var deliveriesOffThread: Int { lock.withLock { offThread } }

    /// Releases `count` more values.
    func release(_ count: Int = 1) {
        let current = lock.withLock { subscription }
        current?.request(.max(count))
    }

    /// Cancels the subscription.
    func cancel() {
        let current = lock.withLock { () -> (any Subscription)? in
            defer { subscription = nil }
            return subscription
        }
        current?.cancel()
    }

    func receive(subscription: any Subscription) {
        lock.withLock { self.subscription = subscription }
        if initialDemand > .none { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let expected = isExpectedThread()
        lock.withLock {
            recorded.append(input)
            if !expected { offThread += 1 }
        }
        onValue?(input)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let expected = isExpectedThread()
        lock.withLock {
            // The stream is over: its subscription is released (as a sink does), which ends their cycle.
            subscription = nil
            ended = completion
            if !expected { offThread += 1 }
        }
    }
}
