import Testing

@testable import RippleBlueZ

/// Every event in every state of a characteristic's notification session, with the machine it leads to
/// (session, listeners, reads, held values) and the actions in order, or the refusal of an event that
/// cannot happen there; and where `Value` changes go.
@Suite struct NotificationSessionStateMachineTests {
    typealias Machine = NotificationSessionStateMachine

    typealias Table = TransitionTable<Machine, Machine>
    typealias Outcome = Table.Outcome
    typealias Row = Table.Row

    static let refusedToNotify = BluetoothError(.notPermitted, "Notify not permitted")
    static let linkEnded = BluetoothError(.notConnected, "the peripheral disconnected")

    static let events: [(String, Machine.Event)] = [
        ("listenerAdded", .listenerAdded(2, canAcquire: true)),
        ("listenerAddedOnTheBus", .listenerAdded(2, canAcquire: false)),
        ("listenerAddedAgain", .listenerAdded(1, canAcquire: false)),
        ("listenerRemoved", .listenerRemoved(1)),
        ("listenerRemovedUnknown", .listenerRemoved(9)),
        ("acquired", .acquired),
        ("acquireFailed", .acquireFailed),
        ("startAnswered", .startAnswered),
        ("startFailed", .startFailed(refusedToNotify)),
        ("socketClosed", .socketClosed),
        ("notifyReleased", .notifyReleased(canAcquire: true)),
        ("notifyReleasedOnTheBus", .notifyReleased(canAcquire: false)),
        ("suspended", .suspended),
        ("rearm", .rearm(canAcquire: true)),
        ("ended", .ended(linkEnded, linkUp: true)),
        ("endedWithTheLink", .ended(linkEnded, linkUp: false)),
        ("readStarted", .readStarted),
        ("readEnded", .readEnded([5])),
    ]

    static func machine(
        _ state: Machine.State, _ listeners: Set<Int> = [1], reads: Int = 0, held: [[UInt8]] = []
    ) -> Machine {
        Machine(state: state, listeners: listeners, readsInFlight: reads, held: held)
    }

    /// What a session with listener 1 does to a second listener, to listener 1 again, to an unknown one
    /// leaving, and to a read starting or ending out of turn.
    static func withListener(_ state: Machine.State, secondListener: Outcome) -> [String: Outcome] {
        [
            "listenerAdded": secondListener, "listenerAddedOnTheBus": secondListener, "listenerAddedAgain": .refused,
            "listenerRemovedUnknown": .to(machine(state), []),
            "notifyReleased": .to(machine(state), []), "notifyReleasedOnTheBus": .to(machine(state), []),
            "readStarted": .to(machine(state, reads: 1), []), "readEnded": .refused,
        ]
    }

    static let rows: [Row] = [
        Row(
            name: "idle, no listener", machine: machine(.idle, []),
            outcomes: [
                "listenerAdded": .to(machine(.acquiring, [2]), [.acquireNotify]),
                "listenerAddedOnTheBus": .to(machine(.starting, [2]), [.startNotify]),
                "listenerAddedAgain": .to(machine(.starting, [1]), [.startNotify]),
                "listenerRemoved": .to(machine(.idle, []), []), "listenerRemovedUnknown": .to(machine(.idle, []), []),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.idle, []), []), "suspended": .to(machine(.idle, []), [.forget]),
                "notifyReleased": .to(machine(.idle, []), []), "notifyReleasedOnTheBus": .to(machine(.idle, []), []),
                "rearm": .to(machine(.idle, []), []), "ended": .to(machine(.idle, []), [.forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.forget]),
                "readStarted": .to(machine(.idle, [], reads: 1), []), "readEnded": .refused,
            ]),
        Row(
            name: "idle, waiting to be re-armed", machine: machine(.idle),
            outcomes: withListener(.idle, secondListener: .refused).merging([
                "listenerAdded": .to(machine(.acquiring, [1, 2]), [.acquireNotify]),
                "listenerAddedOnTheBus": .to(machine(.starting, [1, 2]), [.startNotify]),
                "listenerRemoved": .to(machine(.idle, []), [.forget]),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.idle), []), "suspended": .to(machine(.idle), []),
                "rearm": .to(machine(.acquiring), [.acquireNotify]),
                "ended": .to(machine(.idle, []), [.fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "kept", machine: machine(.kept),
            outcomes: withListener(.kept, secondListener: .to(machine(.starting, [1, 2]), [.startNotify])).merging([
                "listenerRemoved": .to(machine(.idle, []), [.stopNotify(queued: false), .forget]),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.kept), []), "suspended": .to(machine(.kept), []),
                "rearm": .to(machine(.starting), [.startNotify]),
                "ended": .to(machine(.idle, []), [.stopNotify(queued: false), .fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(
                    machine(.idle, []), [.stopNotify(queued: false), .fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "acquiring", machine: machine(.acquiring),
            outcomes: withListener(.acquiring, secondListener: .to(machine(.acquiring, [1, 2]), [])).merging([
                "listenerRemoved": .to(machine(.acquiring, []), []),
                "acquired": .to(machine(.onSocket), [.started]),
                "acquireFailed": .to(machine(.starting), [.startNotify]),
                "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.acquiring), []), "suspended": .to(machine(.idle), [.cancelCall]),
                "rearm": .to(machine(.acquiring), []),
                "ended": .to(machine(.idle, []), [.cancelCall, .fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.cancelCall, .fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "acquiring for nobody", machine: machine(.acquiring, []),
            outcomes: [
                "listenerAdded": .to(machine(.acquiring, [2]), []),
                "listenerAddedOnTheBus": .to(machine(.acquiring, [2]), []),
                "listenerAddedAgain": .to(machine(.acquiring, [1]), []),
                "listenerRemoved": .to(machine(.acquiring, []), []),
                "listenerRemovedUnknown": .to(machine(.acquiring, []), []),
                // The socket came for nobody: closed, and kept until bluetoothd has let go of it.
                "acquired": .to(machine(.releasing, []), [.closeSocket]),
                "acquireFailed": .to(machine(.idle, []), [.forget]),
                "notifyReleased": .to(machine(.acquiring, []), []),
                "notifyReleasedOnTheBus": .to(machine(.acquiring, []), []),
                "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.acquiring, []), []),
                "suspended": .to(machine(.idle, []), [.cancelCall, .forget]),
                "rearm": .to(machine(.acquiring, []), []),
                "ended": .to(machine(.idle, []), [.cancelCall, .forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.cancelCall, .forget]),
                "readStarted": .to(machine(.acquiring, [], reads: 1), []), "readEnded": .refused,
            ]),
        Row(
            name: "starting", machine: machine(.starting),
            outcomes: withListener(.starting, secondListener: .to(machine(.starting, [1, 2]), [])).merging([
                "listenerRemoved": .to(machine(.starting, []), []),
                "acquired": .refused, "acquireFailed": .refused,
                "startAnswered": .to(machine(.onBus), [.started]),
                "startFailed": .to(machine(.idle, []), [.fail([1], refusedToNotify), .forget]),
                "socketClosed": .to(machine(.starting), []), "suspended": .to(machine(.kept), [.cancelCall]),
                "rearm": .to(machine(.starting), []),
                "ended": .to(
                    machine(.idle, []), [.cancelCall, .stopNotify(queued: false), .fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(
                    machine(.idle, []), [.cancelCall, .stopNotify(queued: false), .fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "onSocket", machine: machine(.onSocket),
            outcomes: withListener(.onSocket, secondListener: .to(machine(.onSocket, [1, 2]), [.started])).merging([
                "listenerRemoved": .to(machine(.releasing, []), [.closeSocket]),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.idle), [.closeSocket]), "suspended": .to(machine(.idle), [.closeSocket]),
                "rearm": .to(machine(.onSocket), []),
                "ended": .to(machine(.idle, []), [.closeSocket, .fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.closeSocket, .fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "onBus", machine: machine(.onBus),
            outcomes: withListener(.onBus, secondListener: .to(machine(.onBus, [1, 2]), [.started])).merging([
                "listenerRemoved": .to(machine(.idle, []), [.stopNotify(queued: true), .forget]),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.onBus), []), "suspended": .to(machine(.kept), [.cancelCall]),
                "rearm": .to(machine(.onBus), []),
                "ended": .to(machine(.idle, []), [.stopNotify(queued: true), .fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(
                    machine(.idle, []), [.stopNotify(queued: false), .fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "onBus, a read under way", machine: machine(.onBus, reads: 1, held: [[5], [6]]),
            outcomes: [
                "listenerAdded": .to(machine(.onBus, [1, 2], reads: 1, held: [[5], [6]]), [.started]),
                "listenerAddedOnTheBus": .to(machine(.onBus, [1, 2], reads: 1, held: [[5], [6]]), [.started]),
                "listenerAddedAgain": .refused,
                "listenerRemoved": .to(machine(.idle, [], reads: 1, held: [[5], [6]]), [.stopNotify(queued: true)]),
                "listenerRemovedUnknown": .to(machine(.onBus, reads: 1, held: [[5], [6]]), []),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.onBus, reads: 1, held: [[5], [6]]), []),
                "notifyReleased": .to(machine(.onBus, reads: 1, held: [[5], [6]]), []),
                "notifyReleasedOnTheBus": .to(machine(.onBus, reads: 1, held: [[5], [6]]), []),
                "suspended": .to(machine(.kept, reads: 1, held: [[5], [6]]), [.cancelCall]),
                "rearm": .to(machine(.onBus, reads: 1, held: [[5], [6]]), []),
                "ended": .to(
                    machine(.idle, [], reads: 1, held: [[5], [6]]), [.stopNotify(queued: true), .fail([1], linkEnded)]),
                "endedWithTheLink": .to(
                    machine(.idle, [], reads: 1, held: [[5], [6]]), [.stopNotify(queued: false), .fail([1], linkEnded)]),
                "readStarted": .to(machine(.onBus, reads: 2, held: [[5], [6]]), []),
                // The read's echo ([5]) is dropped; what came besides it goes to the listeners.
                "readEnded": .to(machine(.onBus), [.deliver([[6]])]),
            ]),
        Row(
            name: "releasing, a listener waiting", machine: machine(.releasing),
            outcomes: withListener(.releasing, secondListener: .to(machine(.releasing, [1, 2]), [])).merging([
                "listenerRemoved": .to(machine(.releasing, []), []),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.releasing), []),
                // bluetoothd has let go of the socket: the waiting listener's session starts.
                "notifyReleased": .to(machine(.acquiring), [.acquireNotify]),
                "notifyReleasedOnTheBus": .to(machine(.starting), [.startNotify]),
                // bluetoothd lets go of the socket with the link: re-armed like any idle session.
                "suspended": .to(machine(.idle), []),
                "rearm": .to(machine(.releasing), []),
                "ended": .to(machine(.idle, []), [.fail([1], linkEnded), .forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.fail([1], linkEnded), .forget]),
            ]) { _, new in new }),
        Row(
            name: "releasing for nobody", machine: machine(.releasing, []),
            outcomes: [
                "listenerAdded": .to(machine(.releasing, [2]), []),
                "listenerAddedOnTheBus": .to(machine(.releasing, [2]), []),
                "listenerAddedAgain": .to(machine(.releasing, [1]), []),
                "listenerRemoved": .to(machine(.releasing, []), []),
                "listenerRemovedUnknown": .to(machine(.releasing, []), []),
                "acquired": .refused, "acquireFailed": .refused, "startAnswered": .refused, "startFailed": .refused,
                "socketClosed": .to(machine(.releasing, []), []),
                "notifyReleased": .to(machine(.idle, []), [.forget]),
                "notifyReleasedOnTheBus": .to(machine(.idle, []), [.forget]),
                "suspended": .to(machine(.idle, []), [.forget]),
                "rearm": .to(machine(.releasing, []), []),
                "ended": .to(machine(.idle, []), [.forget]),
                "endedWithTheLink": .to(machine(.idle, []), [.forget]),
                "readStarted": .to(machine(.releasing, [], reads: 1), []), "readEnded": .refused,
            ]),
    ]

    @Test func everyEventInEveryState() {
        Table(machineName: "notification session", events: Self.events, rows: Self.rows).expectEveryEventInEveryState()
    }

    @Test func theTableCoversEveryState() {
        let covered = Set(Self.rows.map(\.machine.state))
        #expect(covered == [.idle, .kept, .acquiring, .starting, .onSocket, .onBus, .releasing])
    }

    /// `Value` changes reach the listeners of a bus session (also while its start or a kept session's
    /// return is under way: bluetoothd may send the first before it answers); during a read they wait.
    @Test func whereValueChangesGo() {
        let routes: [(Machine.State, Int, Machine.Route)] = [
            (.idle, 0, .drop), (.kept, 0, .deliver), (.acquiring, 0, .drop), (.starting, 0, .deliver),
            (.onSocket, 0, .drop), (.onBus, 0, .deliver), (.onBus, 1, .hold), (.releasing, 0, .drop),
        ]
        for (state, reads, route) in routes {
            var machine = Self.machine(state, reads: reads)
            #expect(machine.deliversValues == (route == .deliver), "\(state) with \(reads) reads")
            #expect(machine.route([7]) == route, "\(state) with \(reads) reads")
            #expect(machine.held == (route == .hold ? [[7]] : []))
        }
        var nobody = Self.machine(.onBus, [])
        #expect(!nobody.deliversValues)
        #expect(nobody.route([7]) == .drop)
    }
}
