/// A publisher that runs an `async` operation once and emits its result to every subscriber: a
/// `Future` whose work is an `async` function instead of a promise callback.
///
/// As with Combine's `Future`, the work starts at once, when the `AsyncFuture` is created (in a new
/// `Task`), runs once however many subscribers there are, and runs to its end even if every subscriber
/// cancels. Each subscriber receives the operation's value followed by `.finished` as soon as it has
/// requested a value and the operation has returned; if the operation throws, each subscriber receives
/// `.failure(error)` without waiting for demand. A subscriber that attaches later receives the stored
/// result. Its subscriptions describe themselves as `"AsyncFuture"`.
///
/// ```swift
/// let profile = AsyncFuture { try await api.fetchProfile() }   // Failure is `any Error`
/// let ticks = AsyncFuture<Int, Never> { await counter.next() }
/// ```
///
/// The result is shared by every subscriber, possibly on different threads, so `Output` must be
/// `Sendable`.
public final class AsyncFuture<Output: Sendable, Failure: Error>: Publisher, Sendable {
    private let lock = Lock()
    /// The operation's result, once it has returned or thrown.
    private nonisolated(unsafe) var result: Result<Output, Failure>?
    /// Subscriptions waiting for the result, in subscription order.
    private nonisolated(unsafe) var waiting: [any AsyncFutureDelivery<Output, Failure>] = []

    /// Starts `operation` in a new task; its value or error becomes this publisher's result.
    public init(_ operation: @escaping @Sendable () async throws(Failure) -> Output) {
        Task { await self.run(operation) }
    }

    /// Gives `subscriber` its subscription; the result follows as described on ``AsyncFuture``.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let subscription = AsyncFutureSubscription(future: self, downstream: subscriber)
        subscriber.receive(subscription: subscription)
        guard subscription.isActive else { return }
        if let result = register(subscription) { subscription.resolve(result) }
    }

    /// Adds `subscription` to those waiting, or returns the result if there already is one.
    private func register(_ subscription: any AsyncFutureDelivery<Output, Failure>) -> Result<Output, Failure>? {
        lock.withLock {
            if let result { return result }
            waiting.append(subscription)
            return nil
        }
    }

    private func run(_ operation: @Sendable () async throws(Failure) -> Output) async {
        let result: Result<Output, Failure>
        do throws(Failure) {
            result = .success(try await operation())
        } catch {
            result = .failure(error)
        }
        let waiting = lock.withLock { () -> [any AsyncFutureDelivery<Output, Failure>] in
            self.result = result
            let waiting = self.waiting
            self.waiting = []
            return waiting
        }
        for subscription in waiting { subscription.resolve(result) }
    }

    /// Forgets a cancelled subscription.
    fileprivate func detach(_ subscription: AnyObject) {
        lock.withLock { waiting.removeAll { $0 === subscription } }
    }
}

/// A subscription of an ``AsyncFuture`` waiting for its result.
private protocol AsyncFutureDelivery<Output, Failure>: AnyObject {
    associatedtype Output
    associatedtype Failure: Error
    /// Hands the result over; it is delivered when the subscriber has demand (a failure at once).
    func resolve(_ result: Result<Output, Failure>)
}

/// One subscriber's subscription to an ``AsyncFuture``.
private final class AsyncFutureSubscription<Downstream: Subscriber>: AsyncFutureDelivery, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
where Downstream.Input: Sendable {
    typealias Output = Downstream.Input
    typealias Failure = Downstream.Failure

    private let future: AsyncFuture<Output, Failure>
    private let lock = Lock()
    /// The subscriber, until the result is delivered or the subscription is cancelled.
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var hasDemand = false
    private nonisolated(unsafe) var result: Result<Output, Failure>?

    init(future: AsyncFuture<Output, Failure>, downstream: Downstream) {
        self.future = future
        self.downstream = downstream
    }

    var description: String { "AsyncFuture" }

    var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

    var playgroundDescription: Any { description }

    /// Whether the result is still to be delivered.
    var isActive: Bool { lock.withLock { downstream != nil } }

    func resolve(_ result: Result<Output, Failure>) {
        let downstream = lock.withLock { () -> Downstream? in
            guard self.downstream != nil else { return nil }
            self.result = result
            if case .success = result, !hasDemand { return nil }
            return takeDownstream()
        }
        if let downstream { deliver(result, to: downstream) }
    }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let ready = lock.withLock { () -> (Result<Output, Failure>, Downstream)? in
            hasDemand = true
            guard let result, let downstream = takeDownstream() else { return nil }
            return (result, downstream)
        }
        if let (result, downstream) = ready { deliver(result, to: downstream) }
    }

    func cancel() {
        let wasActive = lock.withLock { takeDownstream() != nil }
        if wasActive { future.detach(self) }
    }

    /// Takes the subscriber out, so that the result is delivered once. Lock held.
    private func takeDownstream() -> Downstream? {
        let downstream = self.downstream
        self.downstream = nil
        return downstream
    }

    private func deliver(_ result: Result<Output, Failure>, to downstream: Downstream) {
        switch result {
        case .success(let value):
            _ = downstream.receive(value)
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(error))
        }
    }
}
