import Ripple
import RippleLoop

/// A GATT operation that waits for its turn in its peripheral's ``GATTOperationQueue``, then runs with
/// a time limit: the publisher `make` returns (made when the turn comes, so that it sees the peripheral
/// as it is then) emits at most one value.
///
/// The operation joins the queue when its subscriber first asks for a value, and leaves it when it
/// ends or is cancelled. Its value waits for demand.
struct QueuedOperation<Output: Sendable>: Publisher {
    typealias Failure = BluetoothError

    let queue: GATTOperationQueue
    let loop: EventLoop
    let id: Int
    /// A connection task's operation: it goes first and runs while the queue is held.
    let urgent: Bool
    let timeout: Duration
    let description: String
    let make: @Sendable () -> AnyPublisher<Output, BluetoothError>

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == BluetoothError {
        let subscription = QueuedOperationSubscription(operation: self, downstream: AnySubscriber(subscriber))
        subscriber.receive(subscription: subscription)
    }
}

private final class QueuedOperationSubscription<Output: Sendable>: Subscription, Sendable {
    /// `draining`: the subscriber has its answer (a timeout) or left, but bluetoothd is still on the
    /// operation, so the queue waits for its end: the next operation on the attribute would get `InProgress`.
    private enum Stage { case idle, waiting, running, draining, ended }

    private let operation: QueuedOperation<Output>
    private let lock = Lock()
    nonisolated(unsafe) private var downstream: AnySubscriber<Output, BluetoothError>?
    nonisolated(unsafe) private var stage = Stage.idle
    nonisolated(unsafe) private var demand = Subscribers.Demand.none
    nonisolated(unsafe) private var value: Output?
    nonisolated(unsafe) private var completion: Subscribers.Completion<BluetoothError>?
    nonisolated(unsafe) private var inner: AnyCancellable?
    nonisolated(unsafe) private var timer: AnyCancellable?

    init(operation: QueuedOperation<Output>, downstream: AnySubscriber<Output, BluetoothError>) {
        self.operation = operation
        self.downstream = downstream
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    func request(_ additional: Subscribers.Demand) {
        let join = lock.withLock { () -> Bool in
            demand += additional
            guard stage == .idle, downstream != nil else { return false }
            stage = .waiting
            return true
        }
        if join { operation.queue.enqueue(operation.id, urgent: operation.urgent) { self.start() } }
        deliver()
    }

    /// The subscriber leaves: a waiting operation leaves the queue; a running one is left to finish.
    func cancel() {
        let leave = lock.withLock { () -> Bool in
            downstream = nil
            value = nil
            timer?.cancel()
            timer = nil
            switch stage {
            case .waiting:
                stage = .ended
                return true
            case .running:
                stage = .draining
                return false
            case .idle, .draining, .ended:
                if stage == .idle { stage = .ended }
                return false
            }
        }
        if leave { operation.queue.leave(operation.id) }
    }

    /// Its turn: makes and runs the operation, with its time limit. The subscription keeps itself
    /// alive until the operation ends, so that the queue always hears of the end.
    private func start() {
        let go = lock.withLock { () -> Bool in
            guard stage == .waiting else { return false }
            stage = .running
            return true
        }
        guard go else { return }
        let limit = operation.timeout
        let description = operation.description
        let timer = operation.loop.after(limit) { [weak self] in
            self?.timedOut(BluetoothError.timeout("\(description) (no answer within \(limit))"))
        }
        lock.withLock { self.timer = timer }
        let inner = operation.make().sink(
            receiveCompletion: { completion in self.ended(completion) },
            receiveValue: { value in self.received(value) })
        let keep = lock.withLock { () -> Bool in
            guard stage == .running || stage == .draining else { return false }
            self.inner = inner
            return true
        }
        if !keep { inner.cancel() }
    }

    private func received(_ value: Output) {
        lock.withLock { if stage == .running, self.value == nil { self.value = value } }
    }

    /// No answer in time: the subscriber fails now; the queue waits for bluetoothd's answer.
    private func timedOut(_ error: BluetoothError) {
        let fail = lock.withLock { () -> Bool in
            guard stage == .running else { return false }
            stage = .draining
            value = nil
            completion = .failure(error)
            return true
        }
        if fail { deliver() }
    }

    /// bluetoothd answered (or the operation failed): the queue moves on; a subscriber still waiting hears.
    private func ended(_ end: Subscribers.Completion<BluetoothError>) {
        let clock = lock.withLock { () -> AnyCancellable? in
            if stage == .running { completion = end }
            stage = .ended
            inner = nil
            defer { timer = nil }
            return timer
        }
        clock?.cancel()
        operation.queue.leave(operation.id)
        deliver()
    }

    /// Hands the value (when there is demand) and the completion to the subscriber, once.
    private func deliver() {
        let ready = lock.withLock {
            () -> (Output?, Subscribers.Completion<BluetoothError>, AnySubscriber<Output, BluetoothError>)? in
            guard let downstream, let completion else { return nil }
            if value != nil, demand == .none { return nil }
            defer {
                value = nil
                self.downstream = nil
            }
            return (value, completion, downstream)
        }
        guard let (value, completion, subscriber) = ready else { return }
        if let value { _ = subscriber.receive(value) }
        subscriber.receive(completion: completion)
    }
}
