extension Publishers {
    /// A publisher that emits the elements of an asynchronous sequence, iterated in a `Task`, as the
    /// subscriber demands them.
    ///
    /// The subscription reaches the subscriber at once; the first request starts a task that iterates
    /// the sequence. The task asks the sequence for an element only while the subscriber has
    /// outstanding demand, and waits (suspended, not blocking a thread) otherwise. The sequence's end
    /// finishes the publisher and its error fails it (`Failure` is the sequence's `Failure`, so an
    /// `AsyncStream` gives `Never`). Cancelling the subscription cancels the task; nothing is delivered
    /// after that. Values and the completion are delivered on the task, one at a time. Make one with
    /// `AsyncSequence.publisher`. Its subscription describes itself as
    /// `"AsyncSequencePublisher"`.
    public struct AsyncSequencePublisher<Base: AsyncSequence & Sendable>: Publisher, Sendable {
        /// The sequence's elements.
        public typealias Output = Base.Element
        /// The sequence's error (`Never` for a sequence that cannot fail).
        public typealias Failure = Base.Failure

        /// The sequence iterated for each subscriber.
        public let base: Base

        /// A publisher of `base`'s elements.
        ///
        /// - Parameter base: The asynchronous sequence whose elements are published.
        public init(_ base: Base) {
            self.base = base
        }

        /// Gives `subscriber` a subscription whose first request starts iterating the sequence.
        ///
        /// - Parameter subscriber: the subscriber.
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            subscriber.receive(subscription: AsyncSequenceSubscription<Base>(base: base, downstream: subscriber))
        }
    }
}

extension AsyncSequence where Self: Sendable {
    /// A publisher that emits this sequence's elements as they are demanded, iterating it in a task;
    /// see ``Ripple/Publishers/AsyncSequencePublisher``.
    ///
    /// ```swift
    /// let stream = AsyncStream { continuation in … }
    /// let cancellable = stream.publisher.sink { value in … }
    /// ```
    public var publisher: Publishers.AsyncSequencePublisher<Self> {
        Publishers.AsyncSequencePublisher(self)
    }
}

/// One subscriber's subscription to an ``Publishers/AsyncSequencePublisher``: it owns the iterating task.
///
/// The task, the subscriber's `request`/`cancel` threads and the task's cancellation all reach it, so
/// it is `Sendable`, with its state beside a ``Lock``. The subscriber is called only from the task, one
/// call at a time. It is held as an existential: a task may not capture the subscriber's type as a
/// generic parameter (its metatype need not be `Sendable`).
private final class AsyncSequenceSubscription<Base: AsyncSequence & Sendable>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, Sendable
{
    typealias Downstream = any Subscriber<Base.Element, Base.Failure>

    private let lock = Lock()
    /// The sequence, until the first request hands it to the task.
    private nonisolated(unsafe) var base: Base?
    /// The subscriber, until the sequence ends or the subscription is cancelled.
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    /// The task, suspended until there is demand.
    private nonisolated(unsafe) var waiter: UnsafeContinuation<Bool, Never>?
    private nonisolated(unsafe) var task: Task<Void, Never>?
    /// Cancelled, or the sequence ended: nothing more is requested or delivered.
    private nonisolated(unsafe) var isTerminated = false

    init(base: Base, downstream: some Subscriber<Base.Element, Base.Failure>) {
        self.base = base
        self.downstream = downstream
    }

    var description: String { "AsyncSequencePublisher" }

    var customMirror: Mirror { Mirror(self, children: EmptyCollection<Mirror.Child>()) }

    var playgroundDescription: Any { description }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let (base, waiter) = lock.withLock { () -> (Base?, UnsafeContinuation<Bool, Never>?) in
            guard !isTerminated else { return (nil, nil) }
            self.demand += demand
            let base = self.base
            self.base = nil
            let waiter = self.waiter
            self.waiter = nil
            if waiter != nil { self.demand -= 1 }
            return (base, waiter)
        }
        waiter?.resume(returning: true)
        guard let base else { return }
        let task = Task { await self.iterate(base) }
        let lateCancel = lock.withLock { () -> Bool in
            if isTerminated { return true }
            self.task = task
            return false
        }
        if lateCancel { task.cancel() }
    }

    func cancel() {
        let (task, waiter) = lock.withLock { () -> (Task<Void, Never>?, UnsafeContinuation<Bool, Never>?) in
            guard !isTerminated else { return (nil, nil) }
            isTerminated = true
            base = nil
            downstream = nil
            let task = self.task
            self.task = nil
            let waiter = self.waiter
            self.waiter = nil
            return (task, waiter)
        }
        task?.cancel()
        waiter?.resume(returning: false)
    }

    // MARK: The task

    private func iterate(_ base: Base) async {
        var iterator = base.makeAsyncIterator()
        while await awaitDemand() {
            let element: Base.Element?
            do throws(Base.Failure) {
                element = try await iterator.next(isolation: nil)
            } catch {
                finish(.failure(error))
                return
            }
            guard let element else {
                finish(.finished)
                return
            }
            guard let downstream = lock.withLock({ isTerminated ? nil : self.downstream }) else { return }
            let more = downstream.receive(element)
            if more > 0 {
                lock.withLock {
                    if !isTerminated { demand += more }
                }
            }
        }
    }

    /// Takes one unit of demand, waiting for a request if there is none; `false` once cancelled.
    private func awaitDemand() async -> Bool {
        let ready = lock.withLock { () -> Bool? in
            if isTerminated { return false }
            guard demand > 0 else { return nil }
            demand -= 1
            return true
        }
        if let ready { return ready }
        return await withUnsafeContinuation { (continuation: UnsafeContinuation<Bool, Never>) in
            let ready = lock.withLock { () -> Bool? in
                if isTerminated { return false }
                guard demand > 0 else {
                    waiter = continuation
                    return nil
                }
                demand -= 1
                return true
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    private func finish(_ completion: Subscribers.Completion<Base.Failure>) {
        let downstream = lock.withLock { () -> Downstream? in
            guard !isTerminated else { return nil }
            isTerminated = true
            task = nil
            let downstream = self.downstream
            self.downstream = nil
            return downstream
        }
        downstream?.receive(completion: completion)
    }
}
