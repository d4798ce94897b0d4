import Ripple

/// A publisher of one operation of the central (a connection, a GATT operation): at most one value,
/// then the end, delivered when the subscriber's demand allows.
///
/// Each subscription is an ``OperationSubscription`` with an identifier. It joins the central's machines
/// through `begin` — at once, or at the subscriber's first demand (`startsOnDemand`) — and leaves them
/// through `leave` when the subscriber cancels before the end. The central ends it with
/// ``OperationSubscription/receive(_:)`` and ``OperationSubscription/finish(_:)``, from its loop thread.
struct OperationPublisher<Output: Sendable>: Publisher {
    typealias Failure = BluetoothError

    /// Whether the operation starts at the first demand rather than at once.
    let startsOnDemand: Bool
    /// A new identifier for each subscription.
    let makeID: @Sendable () -> Int
    /// Joins the central's machines (called once, from the thread that subscribed or demanded).
    let begin: @Sendable (OperationSubscription<Output>) -> Void
    /// Leaves them (the subscriber cancelled after `begin`, before the end).
    let leave: @Sendable (OperationSubscription<Output>) -> Void

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == BluetoothError {
        let subscription = OperationSubscription(
            id: makeID(), downstream: AnySubscriber(subscriber), begin: begin, leave: leave)
        subscriber.receive(subscription: subscription)
        if !startsOnDemand { subscription.startIfNeeded() }
    }
}

/// The subscriber's end of an ``OperationPublisher``: the value and the end wait here for demand.
///
/// Its lock guards only what a subscriber touches from any thread (demand, cancellation, the result
/// waiting for demand); the operation itself lives in the central's loop-confined machines.
final class OperationSubscription<Output: Sendable>: Subscription, Sendable {
    /// The identifier the central knows the operation by.
    let id: Int
    private let begin: @Sendable (OperationSubscription<Output>) -> Void
    private let leave: @Sendable (OperationSubscription<Output>) -> Void

    private let lock = Lock()
    nonisolated(unsafe) private var downstream: AnySubscriber<Output, BluetoothError>?
    nonisolated(unsafe) private var demand = Subscribers.Demand.none
    nonisolated(unsafe) private var started = false
    nonisolated(unsafe) private var value: Output?
    nonisolated(unsafe) private var completion: Subscribers.Completion<BluetoothError>?

    init(
        id: Int, downstream: AnySubscriber<Output, BluetoothError>,
        begin: @escaping @Sendable (OperationSubscription<Output>) -> Void,
        leave: @escaping @Sendable (OperationSubscription<Output>) -> Void
    ) {
        self.id = id
        self.downstream = downstream
        self.begin = begin
        self.leave = leave
    }

    var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }

    /// Whether the subscriber is still there and the operation has not ended.
    var isLive: Bool { lock.withLock { downstream != nil && completion == nil } }

    /// Begins the operation unless it began or the subscriber left.
    func startIfNeeded() {
        let go = lock.withLock { () -> Bool in
            guard !started, downstream != nil else { return false }
            started = true
            return true
        }
        if go { begin(self) }
    }

    func request(_ additional: Subscribers.Demand) {
        lock.withLock { demand += additional }
        startIfNeeded()
        deliver()
    }

    func cancel() {
        let wasRunning = lock.withLock { () -> Bool in
            defer {
                downstream = nil
                value = nil
            }
            return downstream != nil && started && completion == nil
        }
        if wasRunning { leave(self) }
    }

    /// The operation's value (the first one counts).
    ///
    /// - Parameter value: what the operation produced.
    func receive(_ value: Output) {
        lock.withLock { if completion == nil, self.value == nil { self.value = value } }
    }

    /// Ends the operation: the value (if any, once demanded) then `completion` go to the subscriber.
    ///
    /// - Parameter completion: `.finished`, or the failure (which drops any value).
    func finish(_ completion: Subscribers.Completion<BluetoothError>) {
        lock.withLock {
            guard self.completion == nil else { return }
            if case .failure = completion { value = nil }
            self.completion = completion
        }
        deliver()
    }

    /// Hands the value (when there is demand) and the end to the subscriber, once.
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
