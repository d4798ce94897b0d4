/// The subscriber behind ``AsyncPublisher`` and ``AsyncThrowingPublisher``: it requests one value per
/// awaited `next()` and hands values and the completion to the awaiting tasks.
///
/// ## Sendability
/// The iterator's tasks, the upstream's threads and task-cancellation handlers all reach this object,
/// so it is `Sendable`: its state lives beside a ``Lock`` and is touched only inside it, and no
/// continuation or subscription is called with the lock held.
///
/// Values cross from the thread the upstream sends on to the awaiting task. As in Combine, `Output`
/// need not be `Sendable`: each value is handed over once and not kept here, which is the publisher
/// contract (a publisher must not mutate a value after sending it).
///
/// As in Combine, the subscriber is `Cancellable`: cancelling it cancels the subscription and ends the
/// iteration.
internal final class AsyncIteratorSubscriber<Input, Failure: Error>: Subscriber, Cancellable, Sendable {
    /// What an awaiting `next()` gets: a value, `nil` at the end, or the failure (reported once).
    typealias Outcome = Result<Input?, Failure>
    typealias Waiter = UnsafeContinuation<Outcome, Never>

    /// What `next()` does once it has looked at the state.
    private enum Step {
        case resume(Outcome)
        case request(any Subscription)
        case wait
    }

    private let lock = Lock()
    /// `pendingTerminal(nil)` once the upstream failed with no task waiting: the failure (`pendingFailure`) is
    /// reported to the next `next()`, once. `terminal` once finished, reported, or cancelled (task
    /// cancellation or the iterator went away): every `next()` then returns `nil`.
    private nonisolated(unsafe) var status = SubscriptionLifecycle.awaitingSubscription
    /// Before the subscription: the `next()` calls made meanwhile.
    private nonisolated(unsafe) var pendingDemand = Subscribers.Demand.none
    /// While `pendingTerminal`: the failure the next `next()` reports.
    private nonisolated(unsafe) var pendingFailure: Failure?
    /// Tasks waiting in `next()`, oldest first.
    private nonisolated(unsafe) var waiters = RingBuffer<Waiter>()
    /// Values that arrived with no task waiting: from a publisher that ignores demand, or one that answered
    /// a request before its task registered as a waiter (see `next`).
    private nonisolated(unsafe) var early = RingBuffer<Input>()

    init() {}

    /// Waits for the next value: `nil` once the publisher finished (or was cancelled), the failure once
    /// if it failed.
    ///
    /// A value already here (or the end) is returned without suspending. Otherwise one more value is
    /// requested *before* the task registers as a waiter: an upstream that answers on another thread while
    /// `request` runs (a loop's, say) then leaves the value in `early`, and the task takes it on its own thread.
    /// Requested from inside the continuation's body, such a value resumed the task from the other thread
    /// before the task had suspended; the runtime orders that case with its own atomics (uninstrumented) and
    /// tells ThreadSanitizer nothing on that path (it does on the ordinary one, when the resumed task is run
    /// again), so the sanitizer reported the continuation's result, written on one thread and read on the
    /// other, as a race. The window left — a value that comes between the registration and the suspension —
    /// is a few instructions wide.
    func next(isolation actor: isolated (any Actor)? = #isolation) async -> Outcome {
        let step = lock.withLock { () -> Step in
            if let outcome = answerAtOnce() { return .resume(outcome) }
            if case .subscribed(let subscription) = status { return .request(subscription) }
            pendingDemand += 1
            return .wait
        }
        switch step {
        case .resume(let outcome):
            return outcome
        case .request(let subscription):
            subscription.request(.max(1))
        case .wait:
            break
        }
        return await withUnsafeContinuation(isolation: actor) { (waiter: Waiter) in
            // What came while `request` ran, or since.
            let outcome = lock.withLock { () -> Outcome? in
                if let outcome = answerAtOnce() { return outcome }
                waiters.append(waiter)
                return nil
            }
            if let outcome {
                nonisolated(unsafe) let outcome = outcome
                waiter.resume(returning: outcome)
            }
        }
    }

    /// What a `next()` gets without waiting: a value that came early, or the end (a pending failure once);
    /// `nil` while the stream goes on (awaiting its subscription or subscribed). Called with the lock held.
    private func answerAtOnce() -> Outcome? {
        if let value = early.popFirst() {
            nonisolated(unsafe) let value = value
            return .success(value)
        }
        switch status {
        case .awaitingSubscription, .subscribed:
            return nil
        case .pendingTerminal:
            status = .terminal
            guard let error = pendingFailure else { return .success(nil) }
            pendingFailure = nil
            return .failure(error)
        case .terminal:
            return .success(nil)
        }
    }

    /// Cancels the subscription; waiting and later `next()` calls return `nil`.
    func cancel() {
        let (subscription, waiting) = lock.withLock { () -> ((any Subscription)?, RingBuffer<Waiter>) in
            let subscription = status.cancel()
            pendingFailure = nil
            early.removeAll()
            let waiting = waiters
            waiters = RingBuffer()
            return (subscription, waiting)
        }
        subscription?.cancel()
        var remaining = waiting
        while let waiter = remaining.popFirst() { waiter.resume(returning: .success(nil)) }
    }

    // MARK: Subscriber

    func receive(subscription: any Subscription) {
        let demand = lock.withLock { () -> Subscribers.Demand? in
            guard status.accept(subscription) else { return nil }
            return pendingDemand
        }
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand > 0 { subscription.request(demand) }
    }

    /// Hands `input` to the oldest waiting task, or keeps it for the next `next()`.
    ///
    /// As in Combine, a value that comes before the subscription is dropped and ends the calls waiting
    /// then with `nil` (the state stays as it is: a later subscription is asked for what they requested).
    func receive(_ input: Input) -> Subscribers.Demand {
        let (waiter, unsubscribed) = lock.withLock { () -> (Waiter?, RingBuffer<Waiter>) in
            guard status.isSubscribed else {
                let waiting = waiters
                waiters = RingBuffer()
                return (nil, waiting)
            }
            if let waiter = waiters.popFirst() { return (waiter, RingBuffer()) }
            early.append(input)
            return (nil, RingBuffer())
        }
        var ended = unsubscribed
        while let waiting = ended.popFirst() { waiting.resume(returning: .success(nil)) }
        // The value is handed to exactly one task and not kept (see the type's documentation).
        nonisolated(unsafe) let outcome = Outcome.success(input)
        waiter?.resume(returning: outcome)
        return .none
    }

    /// The number of tasks waiting in `next()` (for tests).
    var waitingTasks: Int {
        lock.withLock { waiters.count }
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let (waiting, first) = lock.withLock { () -> (RingBuffer<Waiter>, Waiter?) in
            switch status {
            case .awaitingSubscription, .subscribed: break
            case .pendingTerminal, .terminal: return (RingBuffer(), nil)
            }
            var waiting = waiters
            waiters = RingBuffer()
            let first = early.isEmpty ? waiting.popFirst() : nil
            // The first waiter gets the completion now; otherwise the next `next()` reports it.
            if first == nil, case .failure(let error) = completion {
                status = .pendingTerminal(nil)
                pendingFailure = error
            } else {
                status = .terminal
            }
            return (waiting, first)
        }
        if let first {
            switch completion {
            case .finished: first.resume(returning: .success(nil))
            case .failure(let error): first.resume(returning: .failure(error))
            }
        }
        var remaining = waiting
        while let waiter = remaining.popFirst() { waiter.resume(returning: .success(nil)) }
    }
}

/// Keeps an iterator's subscriber and cancels it when the last copy of the iterator goes away (for
/// example when a `for await` loop is left with `break`), so that the upstream is not left subscribed.
internal final class AsyncIteratorLifetime<Input, Failure: Error>: Sendable {
    let subscriber: AsyncIteratorSubscriber<Input, Failure>

    init(_ subscriber: AsyncIteratorSubscriber<Input, Failure>) {
        self.subscriber = subscriber
    }

    deinit {
        subscriber.cancel()
    }
}
