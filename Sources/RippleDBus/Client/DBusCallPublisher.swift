import Ripple

/// The publisher ``DBusConnection/call(_:timeout:)`` returns: sends one method call per subscription,
/// when the subscriber first demands a value, and emits its reply then finishes, or fails.
///
/// Each subscription sends the call anew. The reply and the completion come on the connection's loop
/// thread.
public struct DBusCallPublisher: Publisher, Sendable {
    /// The reply: a ``DBusMessage`` of kind `methodReturn`, whose ``DBusMessage/body`` holds the results.
    public typealias Output = DBusMessage
    /// Why no reply came: see ``DBusConnection/call(_:timeout:)``.
    public typealias Failure = DBusError

    /// The connection the call goes through.
    public let connection: DBusConnection
    /// The call, or why it could not be made.
    let message: Result<DBusMessage, DBusError>
    /// How long to wait for the reply; nil waits as long as the connection lives.
    public let timeout: Duration?

    init(connection: DBusConnection, message: Result<DBusMessage, DBusError>, timeout: Duration?) {
        self.connection = connection
        self.message = message
        self.timeout = timeout
    }

    /// Subscribes `subscriber`; the call is sent on its first demand.
    ///
    /// - Parameter subscriber: the subscriber.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == DBusMessage, S.Failure == DBusError {
        let subscription = CallSubscription(
            connection: connection, message: message, timeout: timeout, downstream: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

/// One subscription to a ``DBusCallPublisher``.
private final class CallSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, Sendable
where Downstream.Input == DBusMessage, Downstream.Failure == DBusError {
    private let connection: DBusConnection
    private let message: Result<DBusMessage, DBusError>
    private let timeout: Duration?

    private let lock = Lock()
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var started = false
    /// The serial of the call in flight (loop thread only).
    private nonisolated(unsafe) var serial: UInt32?
    /// Whether the subscription was cancelled before the loop sent the call (loop thread only).
    private nonisolated(unsafe) var cancelledBeforeStart = false

    init(
        connection: DBusConnection, message: Result<DBusMessage, DBusError>, timeout: Duration?, downstream: Downstream
    ) {
        self.connection = connection
        self.message = message
        self.timeout = timeout
        self.downstream = downstream
    }

    var description: String { "DBusCall" }

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let start = lock.withLock { () -> Bool in
            guard downstream != nil, !started else { return false }
            started = true
            return true
        }
        guard start else { return }
        connection.core.perform { [self] core in
            guard !cancelledBeforeStart else { return }
            switch message {
            case .failure(let error):
                finish(.failure(error))
            case .success(let call):
                guard core.isOpen else {
                    finish(.failure(.disconnected))
                    return
                }
                serial = core.startCall(call, timeout: timeout) { [self] result in
                    serial = nil
                    switch result {
                    case .success(let reply):
                        let downstream = lock.withLock { () -> Downstream? in
                            defer { self.downstream = nil }
                            return self.downstream
                        }
                        guard let downstream else { return }
                        _ = downstream.receive(reply)
                        downstream.receive(completion: .finished)
                    case .failure(let error):
                        finish(.failure(error))
                    }
                }
            }
        }
    }

    private func finish(_ completion: Subscribers.Completion<DBusError>) {
        let downstream = lock.withLock { () -> Downstream? in
            defer { self.downstream = nil }
            return self.downstream
        }
        downstream?.receive(completion: completion)
    }

    func cancel() {
        let wasStarted = lock.withLock { () -> Bool? in
            guard downstream != nil else { return nil }
            downstream = nil
            return started
        }
        guard wasStarted == true else { return }
        connection.core.perform { [self] core in
            if let serial {
                core.cancelCall(serial)
                self.serial = nil
            } else {
                cancelledBeforeStart = true
            }
        }
    }
}
