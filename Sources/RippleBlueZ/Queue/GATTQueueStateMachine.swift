/// One peripheral's GATT operations — reads, writes, descriptor operations, notification
/// (un)subscriptions — run one at a time in the order they were asked for.
///
/// bluetoothd refuses a second read or write of a characteristic while one is under way
/// (`org.bluez.Error.InProgress`); with every operation of a peripheral in one line, that never happens.
///
/// An operation's turn goes through these states:
/// - `starting`: its time limit runs and its attribute is looked up;
/// - `awaitingAttribute`: the attribute is not exported (yet): it waits, at most the central's attribute
///   timeout, for bluetoothd to export it (a database being resolved again after a reconnection or a
///   Service Changed), then fails with ``BluetoothError/Kind/attributeNotFound``;
/// - `calling`: bluetoothd has the call;
/// - `draining`: the subscriber has its answer (a timeout) or left, but bluetoothd is still on the call,
///   so the next operation waits for bluetoothd's answer (it would get `InProgress` otherwise).
///
/// While the queue is held — by the connection tasks (``Central/onConnect(_:perform:)``) or a
/// ``PeripheralHandOver`` — only urgent operations (a connection task's, and only under the tasks' hold)
/// start. A value type: ``handle(_:)`` takes one event and returns the actions, confined to the
/// central's loop thread.
struct GATTQueueStateMachine: Sendable, Hashable {
    /// An operation waiting for its turn.
    struct Entry: Sendable, Hashable {
        let id: Int
        /// A connection task's operation: it goes before the others and runs under the tasks' hold.
        let urgent: Bool
    }

    /// Why the queue is held.
    enum Hold: Sendable, Hashable {
        case connectionTasks
        case handOver
    }

    /// Whose turn it is, and how far it got.
    enum State: Sendable, Hashable {
        case idle
        case starting(Int)
        case awaitingAttribute(Int)
        case calling(Int)
        case draining(Int)
    }

    /// How an operation ends for its subscriber.
    enum Outcome: Sendable, Hashable {
        /// bluetoothd answered: the value (if any) then the end.
        case answered
        case failed(BluetoothError)
    }

    /// What to do, in order.
    enum Action: Sendable, Hashable {
        /// Its turn: arm its time limit and look up its attribute.
        case start(Int)
        /// Give bluetoothd the call.
        case call(Int)
        /// Arm the wait for its attribute.
        case awaitAttribute(Int)
        /// Tell its subscriber how it ended.
        case deliver(Int, Outcome)
        /// Forget it: its timers, its call, its record.
        case discard(Int)
    }

    enum Event: Sendable, Hashable {
        /// An operation asks for its turn.
        case enqueue(Entry)
        /// Its subscriber cancelled.
        case leave(Int)
        /// Its attribute is there: the call can go.
        case resolved(Int)
        /// Its attribute is not exported.
        case attributeMissing(Int)
        /// It cannot run (not connected, an invalid argument, …).
        case unresolvable(Int, BluetoothError)
        /// The wait for its attribute ended without it.
        case attributeWaitExpired(Int, BluetoothError)
        /// bluetoothd answered its call (nil: success).
        case answered(Int, BluetoothError?)
        /// Its time limit passed.
        case timedOut(Int, BluetoothError)
        case hold(Hold)
        case release(Hold)
    }

    private(set) var state: State = .idle
    private(set) var waiting: [Entry] = []
    private(set) var holds: Set<Hold> = []

    init(state: State = .idle, waiting: [Entry] = [], holds: Set<Hold> = []) {
        self.state = state
        self.waiting = waiting
        self.holds = holds
    }

    /// How many operations wait or run.
    var count: Int { waiting.count + (state == .idle ? 0 : 1) }

    /// Takes `event` and returns what to do, in order.
    ///
    /// - Parameter event: what happened.
    /// - Returns: the actions, in the order to perform them.
    /// - Throws: ``StateMachineViolation`` when `event` cannot happen in the current state (which stays).
    mutating func handle(_ event: Event) throws(StateMachineViolation) -> [Action] {
        switch event {
        case .enqueue(let entry):
            guard state.current != entry.id, !waiting.contains(where: { $0.id == entry.id }) else {
                throw violation(event)
            }
            let position = entry.urgent ? (waiting.firstIndex { !$0.urgent } ?? waiting.count) : waiting.count
            waiting.insert(entry, at: position)
            return startNext()
        case .leave(let id):
            if let index = waiting.firstIndex(where: { $0.id == id }) {
                waiting.remove(at: index)
                return [.discard(id)]
            }
            switch state {
            case .starting(id), .awaitingAttribute(id):
                state = .idle
                return [.discard(id)] + startNext()
            case .calling(id):
                state = .draining(id)
                return []
            default:
                // Already over (it left after its answer).
                return []
            }
        case .resolved(let id):
            guard state == .starting(id) || state == .awaitingAttribute(id) else { throw violation(event) }
            state = .calling(id)
            return [.call(id)]
        case .attributeMissing(let id):
            guard state == .starting(id) else { throw violation(event) }
            state = .awaitingAttribute(id)
            return [.awaitAttribute(id)]
        case .unresolvable(let id, let error), .attributeWaitExpired(let id, let error):
            if case .unresolvable = event {
                guard state == .starting(id) || state == .awaitingAttribute(id) else { throw violation(event) }
            } else {
                guard state == .awaitingAttribute(id) else { throw violation(event) }
            }
            state = .idle
            return [.deliver(id, .failed(error)), .discard(id)] + startNext()
        case .answered(let id, let error):
            switch state {
            case .calling(id):
                state = .idle
                return [.deliver(id, error.map(Outcome.failed) ?? .answered), .discard(id)] + startNext()
            case .draining(id):
                state = .idle
                return [.discard(id)] + startNext()
            default:
                throw violation(event)
            }
        case .timedOut(let id, let error):
            switch state {
            case .starting(id), .awaitingAttribute(id):
                state = .idle
                return [.deliver(id, .failed(error)), .discard(id)] + startNext()
            case .calling(id):
                state = .draining(id)
                return [.deliver(id, .failed(error))]
            case .draining(id):
                // Its subscriber left during the call: nobody to tell; bluetoothd's answer ends the turn.
                return []
            default:
                throw violation(event)
            }
        case .hold(let hold):
            holds.insert(hold)
            return []
        case .release(let hold):
            guard holds.remove(hold) != nil else { return [] }
            return startNext()
        }
    }

    /// Starts the next operation allowed to go, if the line is free.
    private mutating func startNext() -> [Action] {
        guard state == .idle else { return [] }
        let urgentOnly = !holds.isEmpty
        if urgentOnly, holds != [.connectionTasks] { return [] }
        guard let index = waiting.firstIndex(where: { $0.urgent || !urgentOnly }) else { return [] }
        let next = waiting.remove(at: index)
        state = .starting(next.id)
        return [.start(next.id)]
    }

    private func violation(_ event: Event) -> StateMachineViolation {
        StateMachineViolation(machine: "GATT queue", state: "\(state)", event: "\(event)")
    }
}

extension GATTQueueStateMachine.State {
    /// The operation whose turn it is.
    var current: Int? {
        switch self {
        case .idle: nil
        case .starting(let id), .awaitingAttribute(let id), .calling(let id), .draining(let id): id
        }
    }
}
