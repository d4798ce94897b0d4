/// One peripheral's connection as this central sees it: attempts (with their retries, the services'
/// resolution, the refreshed tree and the connection tasks), the ready link, its end, and the
/// reconnections of a ``ReconnectPolicy``.
///
/// A value type: ``handle(_:)`` takes one event (bluetoothd's signal or answer, a timer, the user's
/// request) and returns what to do, without doing it. The central keeps one per peripheral, confined to
/// its loop thread, and performs the actions in order. An event that cannot happen in the state throws
/// ``StateMachineViolation`` and changes nothing.
///
/// ```
///            connect                 answer/Connected        ServicesResolved        refreshed
///  idle ──────────────▶ connecting ─────────────────▶ linkUp ────────────────▶ refreshing ─────────▶ runningTasks
///   ▲  transient failure │  ▲ retry timer                                                              │ tasks done
///   │                    ▼  │                                                                          ▼
///   │              waitingToRetry          disconnect()                 link drops (policy)          ready
///   └───────────── disconnected ◀──── disconnecting ◀──────────── ready ────────────────▶ waitingToReconnect
/// ```
struct ConnectionStateMachine: Sendable {
    /// A connection attempt under way.
    struct Attempt: Sendable, Hashable {
        /// The `connect` subscribers waiting for it (none for a reconnection alone).
        var subscribers: Set<Int>
        /// For an attempt made while the peripheral is under its ``ReconnectPolicy`` (listeners waiting):
        /// the failed attempts before this one.
        var reconnection: Int?
        /// The `Connect()` calls made so far.
        var calls: Int
        /// The attempt's time limit.
        var timeout: Duration
        /// The last transient failure retried (see ``ConnectRetryPolicy``).
        var lastTransientError: BluetoothError?
    }

    /// Where the connection stands.
    enum State: Sendable, Hashable {
        /// Nothing under way: the link is as bluetoothd says (another program's, or none).
        case idle
        /// `Connect()` is under way; no link yet.
        case connecting(Attempt)
        /// `Connect()` failed transiently; the retry timer runs.
        case waitingToRetry(Attempt)
        /// The link is up; bluetoothd resolves the services.
        case linkUp(Attempt)
        /// The services are resolved; the tree of the device is being read again, so that every GATT
        /// object announced is there.
        case refreshing(Attempt)
        /// The connection tasks run.
        case runningTasks(Attempt)
        /// Connected, the database usable.
        case ready
        /// This central's `Disconnect()` is under way.
        case disconnecting
        /// The link is down for this central (bluetoothd's tree may say so a moment later).
        case disconnected
        /// The link dropped under a policy; the timer before the next attempt runs.
        case waitingToReconnect(failures: Int)
        /// Under a policy, waiting for bluetoothd, the adapter or a hand-over to let it reconnect.
        case reconnectionHeld
    }

    /// What the central says on ``Central/connectionEvents``.
    enum Announcement: Sendable, Hashable {
        case connecting
        case connected
        case ready
        case failed(BluetoothError)
        case disconnected(DisconnectReason)
        case autoConnected
    }

    /// What a transition asks the central to do, in order.
    enum Action: Sendable, Hashable {
        /// Tell ``Central/connectionEvents``.
        case announce(Announcement)
        /// An attempt starts: arm its deadline and pause discovery.
        case beginAttempt(timeout: Duration)
        /// The attempt is over: cancel whatever of it is outstanding (call, timers, refresh, tasks) and
        /// let discovery resume.
        case endAttempt
        /// Call `Device1.Connect()`.
        case callConnect
        /// Arm the timer before the next `Connect()`.
        case armRetry(Duration)
        /// Stop the retry timer.
        case cancelRetry
        /// Read bluetoothd's tree again (`GetManagedObjects`) and take the device's part of it.
        case refreshTree
        /// Run the connection tasks, the queue held for everyone else.
        case runTasks
        /// Call `Device1.Disconnect()`, best effort (an attempt given up).
        case takeLinkDown
        /// The attempt's subscribers get the peripheral, then finish.
        case succeed(Set<Int>)
        /// The attempt's subscribers fail.
        case fail(Set<Int>, BluetoothError)
        /// The listeners wait (sessions stopped, kept for a reconnection).
        case suspendListeners
        /// The listeners end with the error.
        case endListeners(BluetoothError)
        /// The listeners start again on the new link.
        case rearmListeners
        /// Arm the timer before a reconnection.
        case armReconnect(Duration)
        /// Stop the reconnection timer.
        case cancelReconnect
        /// The phase changed: update what ``Peripheral/isConnected`` and the connection lists show.
        case publish
    }

    /// What the central learns or is asked.
    enum Event: Sendable {
        /// A `connect` subscriber; `alreadyResolved` when bluetoothd has the device connected and resolved
        /// already (by another program, or from before); `policy` to adopt once ready.
        case connectRequested(subscriber: Int, timeout: Duration, alreadyResolved: Bool, policy: ReconnectPolicy?)
        /// A `connect` subscriber cancelled.
        case subscriberLeft(Int)
        /// `Connect()` succeeded (or answered `AlreadyConnected`).
        case connectAnswered
        /// `Connect()` failed.
        case connectFailed(BluetoothError)
        /// The retry timer fired.
        case retryTimerFired
        /// The attempt's deadline passed.
        case deadlinePassed
        /// `Connected` became true.
        case linkUp
        /// The link is down (`Connected` false, or `ServicesResolved` false without `Connected`), for
        /// `reason`; `canReconnectNow` when bluetoothd and the adapter are there and the peripheral is
        /// not lent.
        case linkDown(DisconnectReason, canReconnectNow: Bool)
        /// `ServicesResolved` became true.
        case servicesResolved
        /// The refreshed tree is in; `hasTasks` when connection tasks are registered.
        case treeRefreshed(hasTasks: Bool)
        /// The tree could not be read again.
        case refreshFailed(BluetoothError)
        /// The connection tasks all finished.
        case tasksFinished
        /// A connection task failed.
        case tasksFailed(BluetoothError)
        /// bluetoothd removed the device.
        case deviceRemoved(canReconnectNow: Bool)
        /// The user asked to disconnect.
        case disconnectRequested
        /// `Disconnect()` succeeded.
        case disconnectAnswered
        /// `Disconnect()` failed.
        case disconnectFailed(BluetoothError)
        /// The timer before a reconnection fired; `device` says what bluetoothd knows of it now.
        case reconnectTimerFired(timeout: Duration, device: DevicePresence)
        /// bluetoothd or the adapter went (`final`: the central or its bus closed).
        case bluetoothLost(BluetoothError, final: Bool)
        /// bluetoothd and the adapter are back and the peripheral is not lent: a held reconnection may go.
        case reconnectAllowed
    }

    /// What bluetoothd knows of a device when a reconnection starts.
    enum DevicePresence: Sendable, Hashable {
        case absent
        case known
        case connectedAndResolved
    }

    /// How this central sees the link, for readers on any thread.
    enum Phase: Sendable, Hashable {
        /// bluetoothd's tree says (no machine opinion).
        case unknown
        /// An attempt without a link yet.
        case connecting
        /// An attempt with the link up, before the database is usable.
        case linkUp
        /// The connection tasks run: their own operations may go.
        case runningTasks
        /// Connected and usable.
        case ready
        /// Down for this central.
        case down
    }

    /// The peripheral's address, for messages.
    let address: BluetoothAddress
    private(set) var state: State = .idle
    /// The policy the peripheral is under, if any.
    private(set) var policy: ReconnectPolicy?
    /// The policy the attempt under way puts it under once ready.
    private var pendingPolicy: ReconnectPolicy?

    init(address: BluetoothAddress, state: State = .idle, policy: ReconnectPolicy? = nil) {
        self.address = address
        self.state = state
        self.policy = policy
    }

    /// The phase the state shows to readers.
    var phase: Phase {
        switch state {
        case .idle: .unknown
        case .connecting, .waitingToRetry: .connecting
        case .linkUp, .refreshing: .linkUp
        case .runningTasks: .runningTasks
        case .ready: .ready
        case .disconnecting, .disconnected, .waitingToReconnect, .reconnectionHeld: .down
        }
    }

    /// Whether an attempt is under way.
    var isAttempting: Bool { attempt != nil }

    /// Whether nothing is left to remember: idle (or disconnected) and under no policy.
    var isAtRest: Bool {
        switch state {
        case .idle, .disconnected: policy == nil
        default: false
        }
    }

    private var attempt: Attempt? {
        switch state {
        case .connecting(let attempt), .waitingToRetry(let attempt), .linkUp(let attempt), .refreshing(let attempt),
            .runningTasks(let attempt):
            attempt
        default: nil
        }
    }

    /// Takes `event` and returns what to do, in order.
    ///
    /// - Parameter event: what happened.
    /// - Returns: the actions, in the order to perform them.
    /// - Throws: ``StateMachineViolation`` when `event` cannot happen in the current state (which stays).
    mutating func handle(_ event: Event) throws(StateMachineViolation) -> [Action] {
        switch event {
        case .connectRequested(let subscriber, let timeout, let resolved, let policy):
            return connectRequested(subscriber, timeout: timeout, resolved: resolved, policy: policy)
        case .subscriberLeft(let subscriber):
            return subscriberLeft(subscriber)
        case .connectAnswered:
            return try connectAnswered(event)
        case .connectFailed(let error):
            return try connectFailed(error, event)
        case .retryTimerFired:
            guard case .waitingToRetry(var attempt) = state else { throw violation(event) }
            attempt.calls += 1
            state = .connecting(attempt)
            return [.callConnect]
        case .deadlinePassed:
            guard let attempt else { throw violation(event) }
            return attemptFailed(attempt, with: timeoutError(attempt), takingLinkDown: true)
        case .linkUp:
            return linkCameUp()
        case .linkDown(let reason, let canReconnectNow):
            return linkWentDown(reason, canReconnectNow: canReconnectNow)
        case .servicesResolved:
            return servicesResolved()
        case .treeRefreshed(let hasTasks):
            guard case .refreshing(let attempt) = state else { throw violation(event) }
            if hasTasks {
                state = .runningTasks(attempt)
                return [.runTasks, .publish]
            }
            return succeeded(attempt)
        case .refreshFailed(let error):
            guard case .refreshing(let attempt) = state else { throw violation(event) }
            let failure = BluetoothError(
                .connectionFailed, "connecting to \(address): the services could not be read: \(error.message)",
                bluezName: error.bluezName, bluezMessage: error.bluezMessage)
            return attemptFailed(attempt, with: failure, takingLinkDown: true)
        case .tasksFinished:
            guard case .runningTasks(let attempt) = state else { throw violation(event) }
            return succeeded(attempt)
        case .tasksFailed(let error):
            guard case .runningTasks(let attempt) = state else { throw violation(event) }
            return attemptFailed(attempt, with: error, takingLinkDown: true)
        case .deviceRemoved(let canReconnectNow):
            if let attempt {
                let failure = BluetoothError(
                    .connectionFailed, "the peripheral was removed before its services were resolved")
                return attemptFailed(attempt, with: failure, takingLinkDown: false)
            }
            guard case .ready = state else { return [] }
            return linkWentDown(.unknown, canReconnectNow: canReconnectNow)
        case .disconnectRequested:
            return disconnectRequested()
        case .disconnectAnswered:
            guard case .disconnecting = state else { return [] }
            state = .disconnected
            return [.publish]
        case .disconnectFailed:
            guard case .disconnecting = state else { return [] }
            state = .idle
            return [.publish]
        case .reconnectTimerFired(let timeout, let device):
            guard case .waitingToReconnect(let failures) = state else { throw violation(event) }
            return reconnect(after: failures, timeout: timeout, device: device)
        case .bluetoothLost(let error, let final):
            return bluetoothLost(error, final: final)
        case .reconnectAllowed:
            guard case .reconnectionHeld = state else { return [] }
            guard let policy else {
                state = .idle
                return [.publish]
            }
            state = .waitingToReconnect(failures: 0)
            return [.armReconnect(policy.delay(before: 0))]
        }
    }

    // MARK: Attempts

    private mutating func connectRequested(
        _ subscriber: Int, timeout: Duration, resolved: Bool, policy: ReconnectPolicy?
    ) -> [Action] {
        if let policy { pendingPolicy = policy }
        switch state {
        case .idle, .disconnected, .disconnecting:
            return begin(Attempt(subscribers: [subscriber], calls: 0, timeout: timeout), resolved: resolved)
        case .waitingToReconnect(let failures):
            return [.cancelReconnect]
                + begin(
                    Attempt(subscribers: [subscriber], reconnection: failures, calls: 0, timeout: timeout),
                    resolved: resolved)
        case .reconnectionHeld:
            return begin(
                Attempt(subscribers: [subscriber], reconnection: 0, calls: 0, timeout: timeout), resolved: resolved)
        case .connecting(var attempt):
            attempt.subscribers.insert(subscriber)
            state = .connecting(attempt)
        case .waitingToRetry(var attempt):
            attempt.subscribers.insert(subscriber)
            state = .waitingToRetry(attempt)
        case .linkUp(var attempt):
            attempt.subscribers.insert(subscriber)
            state = .linkUp(attempt)
        case .refreshing(var attempt):
            attempt.subscribers.insert(subscriber)
            state = .refreshing(attempt)
        case .runningTasks(var attempt):
            attempt.subscribers.insert(subscriber)
            state = .runningTasks(attempt)
        case .ready:
            if let pending = pendingPolicy {
                self.policy = pending
                pendingPolicy = nil
            }
            return [.succeed([subscriber])]
        }
        return []
    }

    /// Starts `attempt`: a `Connect()` call, or (when bluetoothd has the device resolved already) the
    /// refreshed tree.
    private mutating func begin(_ attempt: Attempt, resolved: Bool) -> [Action] {
        var attempt = attempt
        if resolved {
            state = .refreshing(attempt)
            return [
                .beginAttempt(timeout: attempt.timeout), .announce(.connecting), .announce(.connected), .refreshTree,
                .publish,
            ]
        }
        attempt.calls = 1
        state = .connecting(attempt)
        return [.beginAttempt(timeout: attempt.timeout), .announce(.connecting), .callConnect, .publish]
    }

    private mutating func subscriberLeft(_ subscriber: Int) -> [Action] {
        guard var attempt, attempt.subscribers.remove(subscriber) != nil else { return [] }
        guard attempt.subscribers.isEmpty, attempt.reconnection == nil else {
            replaceAttempt(with: attempt)
            return []
        }
        pendingPolicy = nil
        state = .disconnected
        let failure = BluetoothError(.cancelled, "the connection attempt was cancelled")
        return [.endAttempt, .takeLinkDown, .announce(.failed(failure)), .publish]
    }

    /// Puts `attempt` back in the state it came from.
    private mutating func replaceAttempt(with attempt: Attempt) {
        switch state {
        case .connecting: state = .connecting(attempt)
        case .waitingToRetry: state = .waitingToRetry(attempt)
        case .linkUp: state = .linkUp(attempt)
        case .refreshing: state = .refreshing(attempt)
        case .runningTasks: state = .runningTasks(attempt)
        default: break
        }
    }

    private mutating func connectAnswered(_ event: Event) throws(StateMachineViolation) -> [Action] {
        switch state {
        case .connecting(let attempt):
            state = .linkUp(attempt)
            return [.announce(.connected), .publish]
        case .linkUp, .refreshing, .runningTasks, .ready:
            // The link was signalled (or the services resolved) before the answer.
            return []
        case .idle, .waitingToRetry, .disconnecting, .disconnected, .waitingToReconnect, .reconnectionHeld:
            throw violation(event)
        }
    }

    private mutating func connectFailed(_ error: BluetoothError, _ event: Event) throws(StateMachineViolation)
        -> [Action]
    {
        switch state {
        case .connecting(var attempt):
            if attempt.reconnection == nil, ConnectRetryPolicy.isTransient(error) {
                attempt.lastTransientError = error
                state = .waitingToRetry(attempt)
                return [.armRetry(ConnectRetryPolicy.delay(afterCalls: attempt.calls))]
            }
            return attemptFailed(attempt, with: connectionFailure(error), takingLinkDown: false)
        case .linkUp(let attempt):
            return attemptFailed(attempt, with: connectionFailure(error), takingLinkDown: true)
        case .idle, .waitingToRetry, .refreshing, .runningTasks, .ready, .disconnecting, .disconnected,
            .waitingToReconnect, .reconnectionHeld:
            throw violation(event)
        }
    }

    private func connectionFailure(_ error: BluetoothError) -> BluetoothError {
        var failure = error
        if failure.kind == .failed { failure.kind = .connectionFailed }
        return failure
    }

    private func timeoutError(_ attempt: Attempt) -> BluetoothError {
        guard let last = attempt.lastTransientError else {
            return .timeout("connecting to \(address) (no connection within \(attempt.timeout))")
        }
        let calls = attempt.calls == 1 ? "1 call" : "\(attempt.calls) calls"
        return BluetoothError(
            .timeout,
            "connecting to \(address) timed out: no connection within \(attempt.timeout) "
                + "(\(calls) of Connect(), bluetoothd last answered \(last.bluezMessage ?? last.message))",
            bluezName: last.bluezName, bluezMessage: last.bluezMessage)
    }

    private mutating func linkCameUp() -> [Action] {
        switch state {
        case .connecting(let attempt):
            state = .linkUp(attempt)
            return [.announce(.connected), .publish]
        case .waitingToRetry(let attempt):
            state = .linkUp(attempt)
            return [.cancelRetry, .announce(.connected), .publish]
        case .disconnected:
            // Someone connected it again: bluetoothd's tree says how it is.
            state = .idle
            return [.publish]
        case .idle, .linkUp, .refreshing, .runningTasks, .ready, .disconnecting, .waitingToReconnect,
            .reconnectionHeld:
            return []
        }
    }

    private mutating func servicesResolved() -> [Action] {
        switch state {
        case .connecting(let attempt):
            state = .refreshing(attempt)
            return [.announce(.connected), .refreshTree, .publish]
        case .waitingToRetry(let attempt):
            state = .refreshing(attempt)
            return [.cancelRetry, .announce(.connected), .refreshTree, .publish]
        case .linkUp(let attempt):
            state = .refreshing(attempt)
            return [.refreshTree]
        case .idle, .refreshing, .runningTasks, .ready, .disconnecting, .disconnected, .waitingToReconnect,
            .reconnectionHeld:
            return []
        }
    }

    /// The attempt succeeded: the peripheral is ready.
    private mutating func succeeded(_ attempt: Attempt) -> [Action] {
        if let pending = pendingPolicy {
            policy = pending
            pendingPolicy = nil
        }
        state = .ready
        var actions: [Action] = [.endAttempt, .publish, .announce(.ready)]
        if attempt.reconnection != nil { actions += [.announce(.autoConnected), .rearmListeners] }
        if !attempt.subscribers.isEmpty { actions.append(.succeed(attempt.subscribers)) }
        return actions
    }

    /// The attempt failed with `error`: its subscribers hear it; under a policy, the policy decides
    /// what follows.
    private mutating func attemptFailed(_ attempt: Attempt, with error: BluetoothError, takingLinkDown: Bool)
        -> [Action]
    {
        pendingPolicy = nil
        var actions: [Action] = [.endAttempt]
        if takingLinkDown { actions.append(.takeLinkDown) }
        actions.append(.announce(.failed(error)))
        if !attempt.subscribers.isEmpty { actions.append(.fail(attempt.subscribers, error)) }
        guard let failures = attempt.reconnection, policy != nil else {
            state = takingLinkDown ? .disconnected : .idle
            return actions + [.publish]
        }
        return actions + reconnectionFailed(after: failures, with: error)
    }

    /// A reconnection attempt after `failures` others failed with `error`: the policy tries again after
    /// its delay, or gives up.
    private mutating func reconnectionFailed(after failures: Int, with error: BluetoothError) -> [Action] {
        guard let policy else { return gaveUp(error) }
        let count = failures + 1
        if let maximum = policy.maximumAttempts, count >= maximum { return gaveUp(error) }
        guard policy.shouldRetry(error) else { return gaveUp(error) }
        state = .waitingToReconnect(failures: count)
        return [.armReconnect(policy.delay(before: count)), .publish]
    }

    private mutating func gaveUp(_ error: BluetoothError) -> [Action] {
        policy = nil
        state = .idle
        let failure = BluetoothError(
            .connectionFailed, "gave up reconnecting: \(error.message)", bluezName: error.bluezName,
            bluezMessage: error.bluezMessage)
        return [.endListeners(failure), .publish]
    }

    // MARK: The link's end

    private mutating func linkWentDown(_ reason: DisconnectReason, canReconnectNow: Bool) -> [Action] {
        switch state {
        case .linkUp(let attempt), .refreshing(let attempt), .runningTasks(let attempt):
            let failure = BluetoothError(
                .connectionFailed, "the link dropped before the services were resolved: \(reason.message)",
                bluezName: reason == .unknown ? nil : reason.name, bluezMessage: reason.message)
            return attemptFailed(attempt, with: failure, takingLinkDown: false)
        case .ready:
            if let policy, policy.shouldReconnect(reason) {
                if canReconnectNow {
                    state = .waitingToReconnect(failures: 0)
                    return [
                        .suspendListeners, .announce(.disconnected(reason)), .armReconnect(policy.delay(before: 0)),
                        .publish,
                    ]
                }
                state = .reconnectionHeld
                return [.suspendListeners, .announce(.disconnected(reason)), .publish]
            }
            policy = nil
            state = .idle
            return [.endListeners(Self.linkEnded(reason)), .announce(.disconnected(reason)), .publish]
        case .idle:
            // Another program's link: listeners on it end.
            return [.endListeners(Self.linkEnded(reason))]
        case .connecting, .waitingToRetry, .disconnecting, .disconnected, .waitingToReconnect, .reconnectionHeld:
            return []
        }
    }

    /// What listeners of a link that ended for `reason` fail with.
    static func linkEnded(_ reason: DisconnectReason) -> BluetoothError {
        BluetoothError(
            .notConnected, "the peripheral disconnected: \(reason.message)",
            bluezName: reason.name == DisconnectReason.unknown.name ? nil : reason.name,
            bluezMessage: reason.message)
    }

    private mutating func disconnectRequested() -> [Action] {
        let hadPolicy = policy != nil
        policy = nil
        pendingPolicy = nil
        let previous = state
        state = .disconnecting
        switch previous {
        case .connecting(let attempt), .waitingToRetry(let attempt), .linkUp(let attempt), .refreshing(let attempt),
            .runningTasks(let attempt):
            let failure = BluetoothError(.cancelled, "the connection was cancelled by disconnect")
            var actions: [Action] = [.endAttempt, .announce(.failed(failure))]
            if !attempt.subscribers.isEmpty { actions.append(.fail(attempt.subscribers, failure)) }
            if attempt.reconnection != nil || hadPolicy { actions.append(.endListeners(Self.linkEnded(.local))) }
            return actions + [.publish]
        case .ready:
            return [.endListeners(Self.linkEnded(.local)), .announce(.disconnected(.local)), .publish]
        case .waitingToReconnect:
            return [.cancelReconnect, .endListeners(Self.linkEnded(.local)), .publish]
        case .reconnectionHeld:
            return [.endListeners(Self.linkEnded(.local)), .publish]
        case .idle, .disconnected:
            return [.publish]
        case .disconnecting:
            return []
        }
    }

    // MARK: Reconnections

    private mutating func reconnect(after failures: Int, timeout: Duration, device: DevicePresence) -> [Action] {
        let attempt = Attempt(subscribers: [], reconnection: failures, calls: 0, timeout: timeout)
        switch device {
        case .absent:
            // Nothing to call: the attempt fails at once and counts.
            let failure = BluetoothError(.peripheralNotFound, "bluetoothd no longer knows \(address)")
            return reconnectionFailed(after: failures, with: failure)
        case .known:
            return begin(attempt, resolved: false)
        case .connectedAndResolved:
            return begin(attempt, resolved: true)
        }
    }

    private mutating func bluetoothLost(_ error: BluetoothError, final: Bool) -> [Action] {
        let lostLink = DisconnectReason(name: DisconnectReason.unknown.name, message: error.message)
        switch state {
        case .connecting(let attempt), .waitingToRetry(let attempt), .linkUp(let attempt), .refreshing(let attempt),
            .runningTasks(let attempt):
            pendingPolicy = nil
            var actions: [Action] = [.endAttempt, .announce(.failed(error))]
            if !attempt.subscribers.isEmpty { actions.append(.fail(attempt.subscribers, error)) }
            if attempt.reconnection != nil, !final, policy != nil {
                // Nothing can succeed meanwhile: the attempt does not count.
                state = .reconnectionHeld
                return actions + [.publish]
            }
            if attempt.reconnection != nil { actions.append(.endListeners(error)) }
            policy = nil
            state = .disconnected
            return actions + [.publish]
        case .ready:
            if !final, policy != nil {
                state = .reconnectionHeld
                return [.suspendListeners, .announce(.disconnected(lostLink)), .publish]
            }
            policy = nil
            state = .disconnected
            return [.endListeners(error), .announce(.disconnected(lostLink)), .publish]
        case .waitingToReconnect:
            if !final {
                state = .reconnectionHeld
                return [.cancelReconnect]
            }
            policy = nil
            state = .disconnected
            return [.cancelReconnect, .endListeners(error), .publish]
        case .reconnectionHeld:
            guard final else { return [] }
            policy = nil
            state = .disconnected
            return [.endListeners(error), .publish]
        case .disconnecting:
            state = .disconnected
            return [.publish]
        case .idle:
            return [.endListeners(error)]
        case .disconnected:
            return []
        }
    }

    // MARK: Violations

    private func violation(_ event: Event) -> StateMachineViolation {
        StateMachineViolation(machine: "connection", state: Self.name(of: state), event: Self.name(of: event))
    }

    /// The state's case name.
    static func name(of state: State) -> String {
        switch state {
        case .idle: "idle"
        case .connecting: "connecting"
        case .waitingToRetry: "waitingToRetry"
        case .linkUp: "linkUp"
        case .refreshing: "refreshing"
        case .runningTasks: "runningTasks"
        case .ready: "ready"
        case .disconnecting: "disconnecting"
        case .disconnected: "disconnected"
        case .waitingToReconnect: "waitingToReconnect"
        case .reconnectionHeld: "reconnectionHeld"
        }
    }

    /// The event's case name.
    static func name(of event: Event) -> String {
        switch event {
        case .connectRequested: "connectRequested"
        case .subscriberLeft: "subscriberLeft"
        case .connectAnswered: "connectAnswered"
        case .connectFailed: "connectFailed"
        case .retryTimerFired: "retryTimerFired"
        case .deadlinePassed: "deadlinePassed"
        case .linkUp: "linkUp"
        case .linkDown: "linkDown"
        case .servicesResolved: "servicesResolved"
        case .treeRefreshed: "treeRefreshed"
        case .refreshFailed: "refreshFailed"
        case .tasksFinished: "tasksFinished"
        case .tasksFailed: "tasksFailed"
        case .deviceRemoved: "deviceRemoved"
        case .disconnectRequested: "disconnectRequested"
        case .disconnectAnswered: "disconnectAnswered"
        case .disconnectFailed: "disconnectFailed"
        case .reconnectTimerFired: "reconnectTimerFired"
        case .bluetoothLost: "bluetoothLost"
        case .reconnectAllowed: "reconnectAllowed"
        }
    }
}
