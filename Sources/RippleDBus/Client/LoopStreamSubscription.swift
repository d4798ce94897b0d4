import Ripple

/// The subscription of a stream a connection feeds from its loop thread (signals, name owners, object
/// manager changes): values are offered on the loop thread, buffered up to a limit while the subscriber
/// has no demand, and delivered on the loop thread in order.
///
/// - `request` and `cancel` come from any thread. A request that finds values buffered has them delivered
///   on the loop thread (at once when it is made there, outside a delivery).
/// - Overflow (more than `limit` values waiting) ends the stream at once with
///   ``DBusError/bufferOverflow(limit:)``: the buffered values are dropped with it, and ``detach`` runs.
/// - A completion offered by the source (the connection closed, the stream's own end) is delivered after
///   the values already buffered, as demand allows; with nothing buffered, at once.
final class LoopStreamSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible, Sendable
where Downstream.Failure == DBusError {
    typealias Output = Downstream.Input

    private let core: ConnectionCore
    private let limit: Int
    let description: String

    private let lock = Lock()
    private nonisolated(unsafe) var downstream: Downstream?
    private nonisolated(unsafe) var demand = Subscribers.Demand.none
    private nonisolated(unsafe) var buffer = RingBuffer<Output>()
    private nonisolated(unsafe) var completion: Subscribers.Completion<DBusError>?
    /// Unregisters the stream from its source (run once on the loop thread when the stream ends).
    private nonisolated(unsafe) var detach: ((ConnectionCore) -> Void)?

    /// Whether a delivery loop is running (loop thread only).
    private nonisolated(unsafe) var delivering = false

    init(core: ConnectionCore, limit: Int, description: String, downstream: Downstream) {
        self.core = core
        self.limit = max(limit, 1)
        self.description = description
        self.downstream = downstream
    }

    /// Sets what unregisters the stream and returns true; returns false, keeping nothing, if the stream
    /// already ended (the caller then must not register it: nothing would unregister it).
    func setDetach(_ body: @escaping (ConnectionCore) -> Void) -> Bool {
        lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            detach = body
            return true
        }
    }

    /// Whether the subscriber is still there (it has neither cancelled nor been completed).
    var isActive: Bool {
        lock.withLock { downstream != nil }
    }

    // MARK: Source side (loop thread)

    /// Offers `value`: delivered now if demanded, else buffered; past the limit, the stream fails.
    func offer(_ value: Output) {
        // The common case — demand, nothing waiting, no delivery running — takes the lock once and hands
        // the value straight over.
        var direct: Downstream?
        lock.withLock {
            guard let downstream, completion == nil else { return }
            if !delivering, buffer.isEmpty, demand > 0 {
                demand -= 1
                direct = downstream
                return
            }
            if buffer.count >= limit {
                buffer.removeAll()
                completion = .failure(.bufferOverflow(limit: limit))
            } else {
                buffer.append(value)
            }
        }
        if let direct {
            delivering = true
            let more = direct.receive(value)
            delivering = false
            let waiting = lock.withLock { () -> Bool in
                if more > 0 { demand += more }
                return !buffer.isEmpty || completion != nil
            }
            guard waiting else { return }
        }
        deliver()
    }

    /// Ends the stream with `completion` once what is buffered has been delivered.
    func finish(_ completion: Subscribers.Completion<DBusError>) {
        lock.withLock {
            guard downstream != nil, self.completion == nil else { return }
            self.completion = completion
        }
        deliver()
    }

    /// Delivers what demand allows, then the completion if it is due (loop thread; never nested).
    private func deliver() {
        guard !delivering else { return }
        delivering = true
        defer { delivering = false }
        while true {
            let step = lock.withLock { () -> Step in
                guard let downstream else { return .idle }
                if case .failure(.bufferOverflow)? = completion, let ending = completion {
                    self.downstream = nil
                    let detach = self.detach
                    self.detach = nil
                    return .complete(downstream, ending, detach)
                }
                if demand > 0, let value = buffer.popFirst() {
                    demand -= 1
                    return .value(downstream, value)
                }
                if buffer.isEmpty, let ending = completion {
                    self.downstream = nil
                    let detach = self.detach
                    self.detach = nil
                    return .complete(downstream, ending, detach)
                }
                return .idle
            }
            switch step {
            case .value(let downstream, let value):
                let more = downstream.receive(value)
                if more > 0 {
                    lock.withLock { demand += more }
                }
            case .complete(let downstream, let ending, let detach):
                detach?(core)
                downstream.receive(completion: ending)
                return
            case .idle:
                return
            }
        }
    }

    /// What one turn of the delivery loop does.
    private enum Step {
        case value(Downstream, Output)
        case complete(Downstream, Subscribers.Completion<DBusError>, ((ConnectionCore) -> Void)?)
        case idle
    }

    // MARK: Subscriber side (any thread)

    func request(_ demand: Subscribers.Demand) {
        APIViolation.checkDemand(demand)
        let waiting = lock.withLock { () -> Bool in
            guard downstream != nil else { return false }
            self.demand += demand
            return !buffer.isEmpty || completion != nil
        }
        if waiting {
            core.perform { _ in self.deliver() }
        }
    }

    func cancel() {
        let detach = lock.withLock { () -> ((ConnectionCore) -> Void)? in
            guard downstream != nil else { return nil }
            downstream = nil
            buffer.removeAll()
            let detach = self.detach
            self.detach = nil
            return detach
        }
        if let detach {
            core.perform(detach)
        }
    }
}
