/// A subscriber that records everything it receives and everything it asks for, with the demand the test
/// chooses: the exact history a test compares with `==`.
///
/// ```swift
/// let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
/// [1, 2, 3].publisher.subscribe(subscriber)
/// #expect(subscriber.history == [.subscription("[1, 2, 3]"), .request(.max(2)), .value(1), .value(2)])
/// subscriber.request(.max(5))
/// #expect(subscriber.values == [1, 2, 3])
/// #expect(subscriber.completion == .finished)
/// ```
///
/// - `initialDemand` is requested as soon as the subscription arrives (`nil` or `.none` requests nothing:
///   call ``request(_:)`` later).
/// - `onValue` is called with each value and returns the extra demand `receive(_:)` answers with.
///
/// Like Combine's `Sink`, it lets go of its subscription and of its closures at the completion and at its own
/// ``cancel()``, so that an ended pipeline holds no cycle through its subscriber (a closure that captures the
/// subscriber, or the publisher it is attached to, included). It still records whatever arrives afterwards,
/// but calls neither `onValue` nor `onCompletion` again. It still reaches the subscription after the end
/// while something else keeps it (as a ``TestPublisher`` keeps its subscribers), so that a test can check what
/// an operator does with a request or cancel that comes after the end.
///
/// It checks the subscriber's side of the contract as it goes: ``demandViolations`` counts values that
/// arrived without outstanding demand, ``orderViolations`` signals after a completion, before the
/// subscription, or a second subscription. (``PublisherRuleChecker`` checks a publisher against all the
/// rules.) It is safe to use from any thread; its closures are never called while it holds its lock, so they
/// may call back into it. Tests that run publishers on other threads wait for what they expect with
/// ``waitForValues(_:timeout:)``, ``waitForCompletion(timeout:)`` or ``wait(timeout:until:)``.
public final class TestSubscriber<Input, Failure: Error>: Subscriber, CustomStringConvertible, @unchecked Sendable {
    /// Everything recorded and counted, guarded by `lock`. The views of the history (`events`, `values`,
    /// `completion`, `requested`) are kept as it grows, so that reading them, as a wait's condition does
    /// after every event, costs nothing per entry already recorded.
    private struct State {
        var history: [Event] = []
        var events: [Event] = []
        var values: [Input] = []
        var completion: Subscribers.Completion<Failure>?
        var requested = Subscribers.Demand.none
        /// The subscription until the end (the completion or ``TestSubscriber/cancel()``).
        var subscription: (any Subscription)?
        /// The subscription after the end, not kept alive.
        weak var endedSubscription: AnyObject?
        /// Whether a subscription ever arrived.
        var subscribed = false
        /// The closures, until the end (the completion or ``TestSubscriber/cancel()``).
        var callbacks: Callbacks?
        var outstanding = Subscribers.Demand.none
        var demandViolations = 0
        var orderViolations = 0
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0

        var completed: Bool { completion != nil }

        /// The subscription, whether kept or (after the end) still alive elsewhere.
        var current: (any Subscription)? { subscription ?? endedSubscription as? any Subscription }

        /// Stops keeping the subscription alive; returns it, to be released after the lock.
        mutating func releaseSubscription() -> (any Subscription)? {
            guard let kept = subscription else { return nil }
            subscription = nil
            // Not the shared empty subscription: there is nothing to reach in it after the end, and a weak
            // reference to an object that lives until exit only leaves a side table behind.
            if type(of: kept as Any) is AnyClass, (kept as AnyObject) !== (Subscriptions.empty as AnyObject) {
                endedSubscription = kept as AnyObject
            }
            return kept
        }

        /// Appends `event` to the history and to the views it belongs to.
        mutating func record(_ event: Event) {
            history.append(event)
            switch event {
            case .value(let value):
                values.append(value)
                events.append(event)
            case .completion(let ending):
                if completion == nil { completion = ending }
                events.append(event)
            case .subscription:
                events.append(event)
            case .request(let demand):
                requested += demand
            case .cancel:
                break
            }
        }
    }

    /// What the test asked to be called with each value and with the completion.
    private struct Callbacks {
        let onValue: (Input) -> Subscribers.Demand
        let onCompletion: (Subscribers.Completion<Failure>) -> Void
    }

    /// A task waiting for a condition on what was recorded.
    private struct Waiter {
        let condition: @Sendable (TestSubscriber) -> Bool
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = Lock()
    nonisolated(unsafe) private var state = State()
    private let initialDemand: Subscribers.Demand?

    /// Creates a subscriber that asks for `initialDemand` when subscribed and for what `onValue` returns
    /// after each value.
    ///
    /// - Parameters:
    ///   - initialDemand: What to request when the subscription arrives; `nil` or `.none` requests nothing.
    ///   - onValue: Called with each value until the end; returns the extra demand. By default no extra demand.
    ///   - onCompletion: Called with the completion, after it is recorded (not after ``cancel()``).
    public init(
        initialDemand: Subscribers.Demand? = .unlimited,
        onValue: @escaping (Input) -> Subscribers.Demand = { _ in .none },
        onCompletion: @escaping (Subscribers.Completion<Failure>) -> Void = { _ in }
    ) {
        self.initialDemand = initialDemand
        state.callbacks = Callbacks(onValue: onValue, onCompletion: onCompletion)
    }

    /// A subscriber that asks for one value at first and one more after each value: the slowest consumer.
    ///
    /// - Returns: A new subscriber.
    public static func oneAtATime() -> TestSubscriber {
        TestSubscriber(initialDemand: .max(1), onValue: { _ in .max(1) })
    }

    /// `"TestSubscriber"`.
    public var description: String { "TestSubscriber" }

    /// The signals received, in order: the subscription, each value, the completion.
    public var events: [Event] { lock.withLock { state.events } }

    /// The signals received and the requests and cancel sent, in the order they happened.
    public var history: [Event] { lock.withLock { state.history } }

    /// The values received, in order.
    public var values: [Input] { lock.withLock { state.values } }

    /// How many values arrived; cheaper than `values.count` in a wait's condition, which runs after every event.
    public var valueCount: Int { lock.withLock { state.values.count } }

    /// The completion, once one arrived (the first, if a broken publisher sent more).
    public var completion: Subscribers.Completion<Failure>? { lock.withLock { state.completion } }

    /// Whether a completion arrived.
    public var isCompleted: Bool { lock.withLock { state.completed } }

    /// The subscription, once it arrived; after the completion or ``cancel()`` only while something else keeps
    /// it alive.
    public var subscription: (any Subscription)? { lock.withLock { state.current } }

    /// Everything asked for so far, summed.
    public var requested: Subscribers.Demand { lock.withLock { state.requested } }

    /// How many values arrived while no demand was outstanding (a publisher breaking the demand rule).
    public var demandViolations: Int { lock.withLock { state.demandViolations } }

    /// How many signals arrived out of order: after a completion, before the subscription, or a second
    /// subscription.
    public var orderViolations: Int { lock.withLock { state.orderViolations } }

    /// Asks the subscription for `demand` more values, and records the request.
    ///
    /// - Parameter demand: The extra demand, passed on as it is (`.none` included: some subscriptions trap on
    ///   it, as in Combine, and a test may check which).
    public func request(_ demand: Subscribers.Demand) {
        let subscription = lock.withLock { () -> (any Subscription)? in
            state.outstanding += demand
            state.record(.request(demand))
            return state.current
        }
        subscription?.request(demand)
        notifyWaiters()
    }

    /// Cancels the subscription, stops keeping it and the closures alive, and records the cancel.
    public func cancel() {
        let (subscription, callbacks) = lock.withLock { () -> ((any Subscription)?, Callbacks?) in
            state.record(.cancel)
            defer { state.callbacks = nil }
            return (state.releaseSubscription() ?? state.current, state.callbacks)
        }
        subscription?.cancel()
        withExtendedLifetime(callbacks) {}
        notifyWaiters()
    }

    /// Records the subscription and requests the initial demand.
    ///
    /// - Parameter subscription: The subscription the publisher hands over.
    public func receive(subscription: any Subscription) {
        let demand = initialDemand ?? .none
        lock.withLock {
            if state.subscribed || state.completed { state.orderViolations += 1 }
            state.subscribed = true
            state.subscription = subscription
            state.record(.subscription(String(describing: subscription)))
            if demand > .none {
                state.outstanding += demand
                state.record(.request(demand))
            }
        }
        if demand > .none { subscription.request(demand) }
        notifyWaiters()
    }

    /// Records `input` and answers with what `onValue` returns (nothing after the end).
    ///
    /// - Parameter input: The value.
    /// - Returns: The extra demand `onValue` chose.
    public func receive(_ input: Input) -> Subscribers.Demand {
        let callbacks = lock.withLock { () -> Callbacks? in
            if state.completed || !state.subscribed { state.orderViolations += 1 }
            if state.outstanding == .none { state.demandViolations += 1 } else { state.outstanding -= 1 }
            state.record(.value(input))
            return state.callbacks
        }
        let more = callbacks?.onValue(input) ?? .none
        if more > .none {
            lock.withLock {
                state.outstanding += more
                state.record(.request(more))
            }
        }
        notifyWaiters()
        return more
    }

    /// Records `completion`, stops keeping the subscription and the closures alive, then calls `onCompletion`
    /// (for the first completion, and unless the subscriber was cancelled).
    ///
    /// - Parameter completion: How the publisher ended.
    public func receive(completion: Subscribers.Completion<Failure>) {
        let (released, callbacks) = lock.withLock { () -> ((any Subscription)?, Callbacks?) in
            if state.completed || !state.subscribed { state.orderViolations += 1 }
            state.record(.completion(completion))
            defer { state.callbacks = nil }
            return (state.releaseSubscription(), state.callbacks)
        }
        withExtendedLifetime(released) {}
        callbacks?.onCompletion(completion)
        notifyWaiters()
    }
}

// MARK: - Waiting

extension TestSubscriber {
    /// Returns once `condition` holds for this subscriber, checked now and after every event; throws
    /// ``TestSubscriberTimeout`` when it does not hold within `timeout`.
    ///
    /// Nothing polls: the condition is checked when something is recorded. The timeout is a safety limit
    /// that turns a broken test into a failure instead of a hang, never what a test measures.
    ///
    /// - Parameters:
    ///   - timeout: How long to wait at most (real time).
    ///   - condition: What to wait for; called without the subscriber's lock held.
    /// - Throws: ``TestSubscriberTimeout`` after `timeout`; `CancellationError` when the waiting task is
    ///   cancelled.
    public func wait(
        timeout: Duration = .seconds(30), until condition: @escaping @Sendable (TestSubscriber) -> Bool
    ) async throws {
        if condition(self) { return }
        let id = lock.withLock { () -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: timeout)
            guard let self else { return }
            abandon(id, with: timeoutError(after: timeout))
        }
        defer { watchdog.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                lock.withLock { state.waiters[id] = Waiter(condition: condition, continuation: continuation) }
                if Task.isCancelled { abandon(id, with: CancellationError()) }
                notifyWaiters()
            }
        } onCancel: {
            abandon(id, with: CancellationError())
        }
    }

    /// Waits until `count` values have arrived, or the publisher completed.
    ///
    /// - Parameters:
    ///   - count: How many values to wait for.
    ///   - timeout: How long to wait at most (real time).
    /// - Returns: The values received by then (fewer than `count` if the publisher completed first).
    /// - Throws: ``TestSubscriberTimeout`` after `timeout`.
    @discardableResult
    public func waitForValues(_ count: Int, timeout: Duration = .seconds(30)) async throws -> [Input] {
        try await wait(timeout: timeout) { $0.valueCount >= count || $0.isCompleted }
        return values
    }

    /// Waits until the publisher completed.
    ///
    /// - Parameter timeout: How long to wait at most (real time).
    /// - Returns: The completion.
    /// - Throws: ``TestSubscriberTimeout`` after `timeout`.
    @discardableResult
    public func waitForCompletion(timeout: Duration = .seconds(30)) async throws -> Subscribers.Completion<Failure> {
        try await wait(timeout: timeout) { $0.isCompleted }
        guard let completion else { throw timeoutError(after: timeout) }
        return completion
    }

    /// The failure of a wait that gave up after `timeout`: counts, and the last entries of the history.
    private func timeoutError(after timeout: Duration) -> TestSubscriberTimeout {
        lock.withLock {
            TestSubscriberTimeout(
                timeout: timeout,
                valueCount: state.values.count,
                completion: state.completion.map { Event.completion($0).description },
                historyCount: state.history.count,
                recentHistory: state.history.suffix(TestSubscriberTimeout.recentLimit).map(\.description)
            )
        }
    }

    /// Resumes every waiter whose condition now holds.
    private func notifyWaiters() {
        let waiting = lock.withLock { state.waiters }
        guard !waiting.isEmpty else { return }
        for (id, waiter) in waiting where waiter.condition(self) {
            let taken = lock.withLock { state.waiters.removeValue(forKey: id) }
            taken?.continuation.resume()
        }
    }

    /// Ends the wait `id`, if it is still waiting, with `error`.
    private func abandon(_ id: Int, with error: any Error) {
        let taken = lock.withLock { state.waiters.removeValue(forKey: id) }
        taken?.continuation.resume(throwing: error)
    }
}
