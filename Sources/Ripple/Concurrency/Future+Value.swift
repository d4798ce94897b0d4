extension Future where Failure == Never {
    /// The future's value, once the promise has been fulfilled.
    ///
    /// Each read subscribes to the future with a demand of one and waits for its value; after the future
    /// is fulfilled, reads return at once. As in Combine, the wait does not end when the awaiting task is
    /// cancelled (use ``Publisher/firstValue`` for a wait that does).
    public var value: Output {
        get async {
            switch await FutureValueSubscriber.result(of: self) {
            case .success(let value): value
            }
        }
    }
}

extension Future {
    /// The future's value, once the promise has been fulfilled with a success.
    ///
    /// Each read subscribes to the future with a demand of one and waits for its result; after the future
    /// is fulfilled, reads return (or throw) at once. As in Combine, the wait does not end when the
    /// awaiting task is cancelled (use ``Publisher/firstValue`` for a wait that does).
    ///
    /// - Throws: the error the promise was fulfilled with.
    public var value: Output {
        get async throws {
            try await FutureValueSubscriber.result(of: self).get()
        }
    }
}

/// The subscriber behind `Future.value`: it requests one value and resumes the awaiting task once, with
/// the value or the failure.
///
/// The promise may be fulfilled on any thread, so the subscriber is `Sendable`, with its state beside a
/// ``Lock``. As in Combine, `Input` need not be `Sendable`: the value is handed to the awaiting task once
/// and not kept.
private final class FutureValueSubscriber<Input, Failure: Error>: Subscriber, Sendable {
    private let lock = Lock()
    private nonisolated(unsafe) var continuation: UnsafeContinuation<Result<Input, Failure>, Never>?

    private init(_ continuation: UnsafeContinuation<Result<Input, Failure>, Never>) {
        self.continuation = continuation
    }

    /// Subscribes to `future` and waits for its result.
    static func result(of future: Future<Input, Failure>) async -> Result<Input, Failure> {
        await withUnsafeContinuation { continuation in
            future.subscribe(FutureValueSubscriber(continuation))
        }
    }

    func receive(subscription: any Subscription) {
        subscription.request(.max(1))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        // The value is handed to the awaiting task once and not kept (see the type's documentation).
        nonisolated(unsafe) let result = Result<Input, Failure>.success(input)
        takeContinuation()?.resume(returning: result)
        return .none
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        guard case .failure(let error) = completion else { return }
        takeContinuation()?.resume(returning: .failure(error))
    }

    /// Takes the continuation out: the first of the value and the failure resumes the task.
    private func takeContinuation() -> UnsafeContinuation<Result<Input, Failure>, Never>? {
        lock.withLock {
            let taken = continuation
            continuation = nil
            return taken
        }
    }
}
