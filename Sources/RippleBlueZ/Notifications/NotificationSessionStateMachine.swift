/// One characteristic's notification session at bluetoothd, shared by every listener of it in this
/// process: opened with the first listener — an `AcquireNotify` socket where the characteristic and the
/// transport allow it, else `StartNotify` — suspended while the link or the characteristic is gone
/// (listeners kept), re-armed when they are back, ended after the last listener.
///
/// bluetoothd 5.66 keeps a `StartNotify` session of a client across the link's end and enables it
/// again on the next link, until `StopNotify`: the machine remembers it (`kept`) so that the session is
/// taken up again, and stopped when nobody wants it any more.
///
/// A socket this process closed stays bluetoothd's until bluetoothd has seen the hang-up and signalled
/// `NotifyAcquired = false` (`src/gatt-client.c`: `sock_hup` → `destroy_sock`); until then it answers
/// `AcquireNotify` and `StartNotify` with NotPermitted "Notify acquired". The machine waits for that
/// signal (`releasing`) before it opens the next session, so a listener that comes right after the last
/// one left is not refused.
///
/// It also holds `Value` changes that arrive while a read of the characteristic is under way: bluetoothd
/// signals the read's value as a change just before it answers the read, so the changes wait for the
/// answer and the one that is the read's echo is dropped.
///
/// A value type: ``handle(_:)`` takes one event and returns the actions; ``route(_:)`` says where a
/// `Value` change goes. Confined to the central's loop thread.
struct NotificationSessionStateMachine: Sendable, Hashable {
    enum State: Sendable, Hashable {
        /// No session at bluetoothd.
        case idle
        /// bluetoothd keeps this client's `StartNotify` session from an earlier link; none on this link yet.
        case kept
        /// `AcquireNotify` is under way.
        case acquiring
        /// `StartNotify` is under way.
        case starting
        /// Notifications come through an acquired socket.
        case onSocket
        /// Notifications come as `Value` changes (`StartNotify`).
        case onBus
        /// This process closed its socket; bluetoothd has not yet signalled `NotifyAcquired = false`.
        /// Listeners that come meanwhile wait for it.
        case releasing
    }

    enum Event: Sendable, Hashable {
        /// A listener joins; `canAcquire` when the transport and the characteristic allow a socket.
        case listenerAdded(Int, canAcquire: Bool)
        case listenerRemoved(Int)
        /// `AcquireNotify` answered with a socket (kept by the central).
        case acquired
        /// `AcquireNotify` was refused.
        case acquireFailed
        /// `StartNotify` answered (or answered `InProgress`: bluetoothd's kept session).
        case startAnswered
        /// `StartNotify` was refused.
        case startFailed(BluetoothError)
        /// bluetoothd closed the socket.
        case socketClosed
        /// bluetoothd signalled `NotifyAcquired = false`: it has let go of the last socket; `canAcquire`
        /// when the waiting listeners' transport and the characteristic allow a socket.
        case notifyReleased(canAcquire: Bool)
        /// The link or the characteristic went, or the peripheral was lent: stop, keep the listeners.
        case suspended
        /// The characteristic is there again on a usable link: start again if anyone listens.
        case rearm(canAcquire: Bool)
        /// The session ends for good: its listeners fail; `linkUp` says whether `StopNotify` can wait its
        /// turn in the queue.
        case ended(BluetoothError, linkUp: Bool)
        /// A read of the characteristic starts.
        case readStarted
        /// A read ended (with its value when it succeeded).
        case readEnded([UInt8]?)
    }

    enum Action: Sendable, Hashable {
        case acquireNotify
        case startNotify
        /// Forget the call under way.
        case cancelCall
        case closeSocket
        /// `StopNotify`, in the device's queue (`queued`) or at once (the link is gone).
        case stopNotify(queued: Bool)
        /// The session is on: tell those waiting for it.
        case started
        /// These held changes go to the listeners.
        case deliver([[UInt8]])
        /// These listeners end with the error.
        case fail([Int], BluetoothError)
        /// Nothing is left: drop the record.
        case forget
    }

    /// Where a `Value` change goes.
    enum Route: Sendable, Hashable {
        case deliver
        case hold
        case drop
    }

    private(set) var state: State = .idle
    private(set) var listeners: Set<Int> = []
    private(set) var readsInFlight = 0
    private(set) var held: [[UInt8]] = []

    init(state: State = .idle, listeners: Set<Int> = [], readsInFlight: Int = 0, held: [[UInt8]] = []) {
        self.state = state
        self.listeners = listeners
        self.readsInFlight = readsInFlight
        self.held = held
    }

    /// Whether the record is worth keeping: listeners, reads, or a call or session to see through.
    var isIdle: Bool { state == .idle && listeners.isEmpty && readsInFlight == 0 }

    /// Whether a `Value` change goes straight to the listeners now: what ``route(_:)`` answers
    /// ``Route/deliver`` for, asked without changing the machine (the central's per-notification path).
    var deliversValues: Bool {
        (state == .onBus || state == .kept || state == .starting) && readsInFlight == 0 && !listeners.isEmpty
    }

    /// Where a `Value` change of the characteristic goes now (holding it changes the machine).
    ///
    /// - Parameter value: the changed value.
    /// - Returns: to the listeners, held for a read's answer, or nowhere (over a socket, `Value`
    ///   changes are reads' results; without a bus session, nobody listens).
    mutating func route(_ value: [UInt8]) -> Route {
        guard state == .onBus || state == .kept || state == .starting else { return .drop }
        guard readsInFlight == 0 else {
            held.append(value)
            return .hold
        }
        return listeners.isEmpty ? .drop : .deliver
    }

    /// Takes `event` and returns what to do, in order.
    ///
    /// - Parameter event: what happened.
    /// - Returns: the actions, in the order to perform them.
    /// - Throws: ``StateMachineViolation`` when `event` cannot happen in the current state (which stays).
    mutating func handle(_ event: Event) throws(StateMachineViolation) -> [Action] {
        switch event {
        case .listenerAdded(let id, let canAcquire):
            guard listeners.insert(id).inserted else { throw violation(event) }
            switch state {
            case .idle:
                state = canAcquire ? .acquiring : .starting
                return [canAcquire ? .acquireNotify : .startNotify]
            case .kept:
                state = .starting
                return [.startNotify]
            case .onSocket, .onBus:
                return [.started]
            case .acquiring, .starting, .releasing:
                return []
            }
        case .listenerRemoved(let id):
            guard listeners.remove(id) != nil else { return [] }
            return listeners.isEmpty ? endIfUnwanted() : []
        case .acquired:
            guard state == .acquiring else { throw violation(event) }
            state = .onSocket
            return listeners.isEmpty ? endIfUnwanted() : [.started]
        case .acquireFailed:
            guard state == .acquiring else { throw violation(event) }
            // Refused (another client's StartNotify session, an older bluetoothd, …): the bus path.
            guard !listeners.isEmpty else {
                state = .idle
                return forgetIfIdle()
            }
            state = .starting
            return [.startNotify]
        case .startAnswered:
            guard state == .starting else { throw violation(event) }
            state = .onBus
            return listeners.isEmpty ? endIfUnwanted() : [.started]
        case .startFailed(let error):
            guard state == .starting else { throw violation(event) }
            state = .idle
            let failing = listeners.sorted()
            listeners = []
            return (failing.isEmpty ? [] : [.fail(failing, error)]) + forgetIfIdle()
        case .notifyReleased(let canAcquire):
            guard state == .releasing else { return [] }
            guard !listeners.isEmpty else {
                state = .idle
                return forgetIfIdle()
            }
            state = canAcquire ? .acquiring : .starting
            return [canAcquire ? .acquireNotify : .startNotify]
        case .socketClosed:
            guard state == .onSocket else { return [] }
            state = .idle
            return [.closeSocket] + (listeners.isEmpty ? forgetIfIdle() : [])
        case .suspended:
            switch state {
            case .idle, .kept:
                return listeners.isEmpty ? forgetIfIdle() : []
            case .acquiring:
                state = .idle
                return [.cancelCall] + (listeners.isEmpty ? forgetIfIdle() : [])
            case .starting, .onBus:
                // bluetoothd keeps a StartNotify session (even one whose answer was not awaited).
                state = .kept
                return [.cancelCall] + (listeners.isEmpty ? endIfUnwanted() : [])
            case .onSocket:
                state = .idle
                return [.closeSocket] + (listeners.isEmpty ? forgetIfIdle() : [])
            case .releasing:
                // bluetoothd lets go of the socket with the link.
                state = .idle
                return listeners.isEmpty ? forgetIfIdle() : []
            }
        case .rearm(let canAcquire):
            guard !listeners.isEmpty else { return [] }
            switch state {
            case .idle:
                state = canAcquire ? .acquiring : .starting
                return [canAcquire ? .acquireNotify : .startNotify]
            case .kept:
                state = .starting
                return [.startNotify]
            case .acquiring, .starting, .onSocket, .onBus, .releasing:
                return []
            }
        case .ended(let error, let linkUp):
            let failing = listeners.sorted()
            listeners = []
            var actions: [Action] = []
            switch state {
            case .idle, .releasing: break
            case .kept: actions.append(.stopNotify(queued: false))
            case .acquiring: actions.append(.cancelCall)
            case .starting: actions += [.cancelCall, .stopNotify(queued: false)]
            case .onSocket: actions.append(.closeSocket)
            case .onBus: actions.append(.stopNotify(queued: linkUp))
            }
            state = .idle
            if !failing.isEmpty { actions.append(.fail(failing, error)) }
            return actions + forgetIfIdle()
        case .readStarted:
            readsInFlight += 1
            return []
        case .readEnded(let value):
            guard readsInFlight > 0 else { throw violation(event) }
            readsInFlight -= 1
            if let value, let echo = held.lastIndex(of: value) { held.remove(at: echo) }
            guard readsInFlight == 0 else { return [] }
            let release = held
            held = []
            let delivered: [Action] = release.isEmpty || listeners.isEmpty ? [] : [.deliver(release)]
            return delivered + forgetIfIdle()
        }
    }

    /// The last listener left: the session at bluetoothd ends (once a call under way is answered).
    private mutating func endIfUnwanted() -> [Action] {
        switch state {
        case .acquiring, .starting:
            return []
        case .onSocket:
            // Kept until bluetoothd has let go of the socket: the next session waits for that.
            state = .releasing
            return [.closeSocket]
        case .onBus:
            state = .idle
            return [.stopNotify(queued: true)] + forgetIfIdle()
        case .kept:
            state = .idle
            return [.stopNotify(queued: false)] + forgetIfIdle()
        case .idle, .releasing:
            return forgetIfIdle()
        }
    }

    private func forgetIfIdle() -> [Action] {
        isIdle ? [.forget] : []
    }

    private func violation(_ event: Event) -> StateMachineViolation {
        StateMachineViolation(machine: "notification session", state: "\(state)", event: "\(event)")
    }
}
