/// Why ``Publisher/firstValue`` or ``Publisher/lastValue`` has no value to return.
public enum PublisherValueError: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The publisher finished without emitting any value.
    case finishedWithoutValue

    /// A sentence saying what happened.
    public var description: String {
        switch self {
        case .finishedWithoutValue: "The publisher finished without emitting a value."
        }
    }
}

extension Publisher {
    /// Subscribes, waits for the publisher's first value and returns it; the subscription is then
    /// cancelled.
    ///
    /// Requests one value. Throws the publisher's error if it fails first,
    /// ``PublisherValueError/finishedWithoutValue`` if it finishes first, and `CancellationError` if the
    /// awaiting task is cancelled (which cancels the subscription). Combine has no such accessor (only
    /// `Future.value`); this one works on any publisher.
    ///
    /// ```swift
    /// let reply = try await responses.filter { $0.id == request.id }.firstValue
    /// ```
    public var firstValue: Output {
        get async throws {
            try await AwaitedValueSubscriber<Output, Failure>.value(of: self, keepingLast: false)
        }
    }

    /// Subscribes, waits for the publisher to finish and returns the last value it emitted.
    ///
    /// Requests unlimited values. Throws the publisher's error if it fails,
    /// ``PublisherValueError/finishedWithoutValue`` if it finishes without a value, and
    /// `CancellationError` if the awaiting task is cancelled (which cancels the subscription).
    ///
    /// ```swift
    /// let total = try await numbers.scan(0, +).lastValue
    /// ```
    public var lastValue: Output {
        get async throws {
            try await AwaitedValueSubscriber<Output, Failure>.value(of: self, keepingLast: true)
        }
    }
}

/// The subscriber behind ``Publisher/firstValue`` and ``Publisher/lastValue``: it resumes one awaiting
/// task with the first (or last) value, the failure, or an error saying why there is no value.
///
/// The awaiting task, the upstream's threads and the task's cancellation handler all reach it, so it
/// is `Sendable`, with its state beside a ``Lock``. As in Combine, `Input` need not be `Sendable`: the
/// value is handed to the awaiting task once and not kept afterwards.
private final class AwaitedValueSubscriber<Input, Failure: Error>: Subscriber, Sendable {
    private let keepingLast: Bool
    private let lock = Lock()
    private nonisolated(unsafe) var continuation: UnsafeContinuation<Input, any Error>?
    /// The upstream subscription: awaited, held, then terminal once the task was resumed or cancelled (nothing
    /// more is accepted).
    private nonisolated(unsafe) var lifecycle = SubscriptionLifecycle.awaitingSubscription
    private nonisolated(unsafe) var last: Input?

    private init(keepingLast: Bool) {
        self.keepingLast = keepingLast
    }

    /// Subscribes to `publisher` and waits for its first or last value.
    static func value<P: Publisher>(of publisher: P, keepingLast: Bool) async throws -> Input
    where P.Output == Input, P.Failure == Failure {
        let subscriber = AwaitedValueSubscriber(keepingLast: keepingLast)
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Input, any Error>) in
                guard subscriber.install(continuation) else { return }
                publisher.subscribe(subscriber)
            }
        } onCancel: {
            subscriber.cancelTask()
        }
    }

    /// Keeps the continuation; `false` (after resuming it) if the task was already cancelled.
    private func install(_ continuation: UnsafeContinuation<Input, any Error>) -> Bool {
        let accepted = lock.withLock { () -> Bool in
            guard !lifecycle.isTerminal else { return false }
            self.continuation = continuation
            return true
        }
        if !accepted { continuation.resume(throwing: CancellationError()) }
        return accepted
    }

    /// The awaiting task was cancelled: cancels the subscription and throws `CancellationError`.
    private func cancelTask() {
        let (subscription, continuation) = finish()
        subscription?.cancel()
        continuation?.resume(throwing: CancellationError())
    }

    /// Marks the work done and takes out what is left to cancel or resume. The first call wins.
    private func finish() -> ((any Subscription)?, UnsafeContinuation<Input, any Error>?) {
        lock.withLock {
            guard !lifecycle.isTerminal else { return (nil, nil) }
            let taken = (lifecycle.cancel(), continuation)
            continuation = nil
            last = nil
            return taken
        }
    }

    func receive(subscription: any Subscription) {
        let accepted = lock.withLock { () -> Bool in
            lifecycle.accept(subscription)
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(keepingLast ? .unlimited : .max(1))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        if keepingLast {
            lock.withLock {
                if !lifecycle.isTerminal { last = input }
            }
            return .none
        }
        let (subscription, continuation) = finish()
        subscription?.cancel()
        // The value is handed to the awaiting task once and not kept (see the type's documentation).
        nonisolated(unsafe) let value = input
        continuation?.resume(returning: value)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let last = lock.withLock { () -> Input? in
            let last = self.last
            self.last = nil
            return last
        }
        let (_, continuation) = finish()
        guard let continuation else { return }
        switch completion {
        case .failure(let error):
            continuation.resume(throwing: error)
        case .finished:
            if let last {
                nonisolated(unsafe) let value = last
                continuation.resume(returning: value)
            } else {
                continuation.resume(throwing: PublisherValueError.finishedWithoutValue)
            }
        }
    }
}
