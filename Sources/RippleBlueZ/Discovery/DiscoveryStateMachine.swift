import RippleDBus

/// The central's one discovery session at bluetoothd, shared by every discovery client: started with
/// the clients' merged filter while any client wants it, changed when the filter changes, paused while
/// connection attempts run, stopped after the last client, interrupted while bluetoothd or the adapter is
/// gone.
///
/// One change at a time: while a start or a stop is under way the machine waits for bluetoothd's answer,
/// then looks again at what the clients want. A value type: ``handle(_:)`` takes one event and returns the
/// actions, confined to the central's loop thread.
///
/// ```
///  unavailable ──available──▶ off ──wanted──▶ starting ──answered──▶ on ──filter changed──▶ changingFilter
///       ▲                      ▲                                     │                            │
///       └──── lost (any) ──────┴──────── stopping ◀──── not wanted ──┴──────── answered ──────────┘
/// ```
struct DiscoveryStateMachine: Sendable, Hashable {
    /// What a client asks of the session.
    struct Client: Sendable, Hashable {
        let filter: DiscoveryFilter
        /// Waits through bluetoothd's or the adapter's absence instead of failing.
        let resumes: Bool
    }

    /// The session at bluetoothd.
    enum State: Sendable, Hashable {
        /// bluetoothd or the adapter is not there: no session.
        case unavailable
        /// No session.
        case off
        /// `SetDiscoveryFilter` and `StartDiscovery` are under way with this filter.
        case starting([String: DBusValue])
        /// Discovering with this filter.
        case on([String: DBusValue])
        /// Discovering with the first filter; the second is on its way.
        case changingFilter(from: [String: DBusValue], to: [String: DBusValue])
        /// `StopDiscovery` is under way.
        case stopping
    }

    enum Event: Sendable, Hashable {
        case clientAdded(Int, Client)
        case clientRemoved(Int)
        /// A connection attempt starts (discovery pauses) or ends.
        case paused
        case resumed
        /// bluetoothd accepted the filter and the start (or answered `InProgress`: this client discovers).
        case startAnswered
        /// bluetoothd refused to discover.
        case startFailed(BluetoothError)
        /// bluetoothd answered `StopDiscovery` (either way, the session is over).
        case stopAnswered
        /// bluetoothd and the adapter are there (again).
        case available
        /// bluetoothd or the adapter went; `final` when the central or its bus closed.
        case lost(BluetoothError, final: Bool)
    }

    enum Action: Sendable, Hashable {
        /// Set the filter and start discovering.
        case start([String: DBusValue])
        /// Stop discovering.
        case stop
        /// Forget the start or stop under way (bluetoothd is gone).
        case cancelCall
        /// ``Central/isScanning`` changes: true once bluetoothd discovers for the clients, false as soon as
        /// they no longer want it (or it is lost), before the stop is answered.
        case scanning(Bool)
        /// Tell these clients of every device that advertised during this session.
        case reportAdvertisers([Int])
        /// These clients end with the error.
        case fail([Int], BluetoothError)
    }

    private(set) var state: State = .unavailable
    private(set) var clients: [Int: Client] = [:]
    /// Connection attempts under way.
    private(set) var pauses = 0

    init(state: State = .unavailable, clients: [Int: Client] = [:], pauses: Int = 0) {
        self.state = state
        self.clients = clients
        self.pauses = pauses
    }

    /// Whether advertisements reach the clients now: while bluetoothd discovers for them and they want
    /// it (``Central/isScanning`` is true exactly then).
    var isDelivering: Bool {
        switch state {
        case .on, .changingFilter: true
        case .unavailable, .off, .starting, .stopping: false
        }
    }

    /// The filter bluetoothd gets for the clients now.
    var wantedFilter: [String: DBusValue] {
        DiscoveryFilter.merged(clients.keys.sorted().compactMap { clients[$0]?.filter })
    }

    /// Takes `event` and returns what to do, in order.
    ///
    /// - Parameter event: what happened.
    /// - Returns: the actions, in the order to perform them.
    /// - Throws: ``StateMachineViolation`` when `event` cannot happen in the current state (which stays).
    mutating func handle(_ event: Event) throws(StateMachineViolation) -> [Action] {
        switch event {
        case .clientAdded(let id, let client):
            guard clients[id] == nil else { throw violation(event) }
            clients[id] = client
            return (isDelivering ? [.reportAdvertisers([id])] : []) + reconcile()
        case .clientRemoved(let id):
            guard clients.removeValue(forKey: id) != nil else { return [] }
            return reconcile()
        case .paused:
            pauses += 1
            return reconcile()
        case .resumed:
            guard pauses > 0 else { throw violation(event) }
            pauses -= 1
            return reconcile()
        case .startAnswered:
            switch state {
            case .starting(let filter):
                state = .on(filter)
                return [.scanning(true), .reportAdvertisers(clients.keys.sorted())] + reconcile()
            case .changingFilter(_, let filter):
                state = .on(filter)
                return reconcile()
            default:
                throw violation(event)
            }
        case .startFailed(let error):
            switch state {
            case .starting(let filter):
                if error.kind == .inProgress {
                    // This client discovers already (bluetoothd kept its session).
                    state = .on(filter)
                    return [.scanning(true), .reportAdvertisers(clients.keys.sorted())] + reconcile()
                }
                state = .off
                let failing = clients.keys.sorted()
                clients = [:]
                return failing.isEmpty ? [] : [.fail(failing, error)]
            case .changingFilter(_, let filter):
                // Still discovering; the filter is taken as given, so that a refused one is not retried forever.
                state = .on(filter)
                return reconcile()
            default:
                throw violation(event)
            }
        case .stopAnswered:
            guard case .stopping = state else { throw violation(event) }
            state = .off
            return reconcile()
        case .available:
            guard case .unavailable = state else { return [] }
            state = .off
            return reconcile()
        case .lost(let error, let final):
            let wasScanning = isDelivering
            let hadCall: Bool
            switch state {
            case .starting, .changingFilter, .stopping: hadCall = true
            case .unavailable, .off, .on: hadCall = false
            }
            state = .unavailable
            let failing = clients.filter { final || !$0.value.resumes }.keys.sorted()
            for id in failing { clients[id] = nil }
            var actions: [Action] = []
            if hadCall { actions.append(.cancelCall) }
            if wasScanning { actions.append(.scanning(false)) }
            if !failing.isEmpty { actions.append(.fail(failing, error)) }
            return actions
        }
    }

    /// Brings the session in line with what the clients want, unless a change is under way.
    private mutating func reconcile() -> [Action] {
        let wanted = !clients.isEmpty && pauses == 0
        switch state {
        case .off:
            guard wanted else { return [] }
            let filter = wantedFilter
            state = .starting(filter)
            return [.start(filter)]
        case .on(let filter):
            if !wanted {
                state = .stopping
                return [.scanning(false), .stop]
            }
            let next = wantedFilter
            guard next != filter else { return [] }
            state = .changingFilter(from: filter, to: next)
            return [.start(next)]
        case .unavailable, .starting, .changingFilter, .stopping:
            return []
        }
    }

    private func violation(_ event: Event) -> StateMachineViolation {
        StateMachineViolation(machine: "discovery", state: "\(state)", event: "\(event)")
    }
}
