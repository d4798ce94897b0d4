import RippleDBus
import Testing

@testable import RippleBlueZ

/// Every event in every state of the discovery machine, with the machine it leads to (session, clients,
/// pauses) and the actions in order, or the refusal of an event that cannot happen there.
@Suite struct DiscoveryStateMachineTests {
    typealias Machine = DiscoveryStateMachine
    typealias Client = Machine.Client

    typealias Table = TransitionTable<Machine, Machine>
    typealias Outcome = Table.Outcome
    typealias Row = Table.Row

    /// Client 1 fails when bluetoothd goes; client 2 waits for it.
    static let one = Client(filter: .services([.heartRate]), resumes: false)
    static let two = Client(filter: .services([.battery]), resumes: true)
    static let filterOne = DiscoveryFilter.merged([one.filter])
    static let filterTwo = DiscoveryFilter.merged([two.filter])
    static let filterBoth = DiscoveryFilter.merged([one.filter, two.filter])
    static let refused = BluetoothError(.notPermitted, "discovery not permitted")
    static let inProgress = BluetoothError(.inProgress, "In Progress")
    static let gone = BluetoothError.bluetoothUnavailable

    static let events: [(String, Machine.Event)] = [
        ("clientAdded", .clientAdded(2, two)),
        ("clientAddedAgain", .clientAdded(1, one)),
        ("clientRemoved", .clientRemoved(1)),
        ("clientRemovedUnknown", .clientRemoved(9)),
        ("paused", .paused),
        ("resumed", .resumed),
        ("startAnswered", .startAnswered),
        ("startFailedInProgress", .startFailed(inProgress)),
        ("startFailed", .startFailed(refused)),
        ("stopAnswered", .stopAnswered),
        ("available", .available),
        ("lost", .lost(gone, final: false)),
        ("lostFinally", .lost(gone, final: true)),
    ]

    static func machine(_ state: Machine.State, _ clients: [Int: Client] = [:], pauses: Int = 0) -> Machine {
        Machine(state: state, clients: clients, pauses: pauses)
    }

    static let rows: [Row] = [
        Row(
            name: "unavailable", machine: machine(.unavailable),
            outcomes: [
                "clientAdded": .to(machine(.unavailable, [2: two]), []),
                "clientAddedAgain": .to(machine(.unavailable, [1: one]), []),
                "clientRemoved": .to(machine(.unavailable), []), "clientRemovedUnknown": .to(machine(.unavailable), []),
                "paused": .to(machine(.unavailable, pauses: 1), []), "resumed": .refused,
                "startAnswered": .refused, "startFailedInProgress": .refused, "startFailed": .refused,
                "stopAnswered": .refused, "available": .to(machine(.off), []),
                "lost": .to(machine(.unavailable), []), "lostFinally": .to(machine(.unavailable), []),
            ]),
        Row(
            name: "off", machine: machine(.off),
            outcomes: [
                "clientAdded": .to(machine(.starting(filterTwo), [2: two]), [.start(filterTwo)]),
                "clientAddedAgain": .to(machine(.starting(filterOne), [1: one]), [.start(filterOne)]),
                "clientRemoved": .to(machine(.off), []), "clientRemovedUnknown": .to(machine(.off), []),
                "paused": .to(machine(.off, pauses: 1), []), "resumed": .refused,
                "startAnswered": .refused, "startFailedInProgress": .refused, "startFailed": .refused,
                "stopAnswered": .refused, "available": .to(machine(.off), []),
                "lost": .to(machine(.unavailable), []), "lostFinally": .to(machine(.unavailable), []),
            ]),
        Row(
            name: "starting", machine: machine(.starting(filterOne), [1: one]),
            outcomes: [
                "clientAdded": .to(machine(.starting(filterOne), [1: one, 2: two]), []),
                "clientAddedAgain": .refused,
                "clientRemoved": .to(machine(.starting(filterOne)), []),
                "clientRemovedUnknown": .to(machine(.starting(filterOne), [1: one]), []),
                "paused": .to(machine(.starting(filterOne), [1: one], pauses: 1), []), "resumed": .refused,
                "startAnswered": .to(
                    machine(.on(filterOne), [1: one]), [.scanning(true), .reportAdvertisers([1])]),
                "startFailedInProgress": .to(
                    machine(.on(filterOne), [1: one]), [.scanning(true), .reportAdvertisers([1])]),
                "startFailed": .to(machine(.off), [.fail([1], refused)]),
                "stopAnswered": .refused,
                "available": .to(machine(.starting(filterOne), [1: one]), []),
                "lost": .to(machine(.unavailable), [.cancelCall, .fail([1], gone)]),
                "lostFinally": .to(machine(.unavailable), [.cancelCall, .fail([1], gone)]),
            ]),
        Row(
            name: "on", machine: machine(.on(filterOne), [1: one]),
            outcomes: [
                "clientAdded": .to(
                    machine(.changingFilter(from: filterOne, to: filterBoth), [1: one, 2: two]),
                    [.reportAdvertisers([2]), .start(filterBoth)]),
                "clientAddedAgain": .refused,
                "clientRemoved": .to(machine(.stopping), [.scanning(false), .stop]),
                "clientRemovedUnknown": .to(machine(.on(filterOne), [1: one]), []),
                "paused": .to(machine(.stopping, [1: one], pauses: 1), [.scanning(false), .stop]), "resumed": .refused,
                "startAnswered": .refused, "startFailedInProgress": .refused, "startFailed": .refused,
                "stopAnswered": .refused, "available": .to(machine(.on(filterOne), [1: one]), []),
                "lost": .to(machine(.unavailable), [.scanning(false), .fail([1], gone)]),
                "lostFinally": .to(machine(.unavailable), [.scanning(false), .fail([1], gone)]),
            ]),
        Row(
            name: "changingFilter",
            machine: machine(.changingFilter(from: filterOne, to: filterBoth), [1: one, 2: two]),
            outcomes: [
                "clientAdded": .refused, "clientAddedAgain": .refused,
                "clientRemoved": .to(machine(.changingFilter(from: filterOne, to: filterBoth), [2: two]), []),
                "clientRemovedUnknown": .to(
                    machine(.changingFilter(from: filterOne, to: filterBoth), [1: one, 2: two]), []),
                "paused": .to(
                    machine(.changingFilter(from: filterOne, to: filterBoth), [1: one, 2: two], pauses: 1), []),
                "resumed": .refused,
                "startAnswered": .to(machine(.on(filterBoth), [1: one, 2: two]), []),
                "startFailedInProgress": .to(machine(.on(filterBoth), [1: one, 2: two]), []),
                "startFailed": .to(machine(.on(filterBoth), [1: one, 2: two]), []),
                "stopAnswered": .refused,
                "available": .to(machine(.changingFilter(from: filterOne, to: filterBoth), [1: one, 2: two]), []),
                "lost": .to(machine(.unavailable, [2: two]), [.cancelCall, .scanning(false), .fail([1], gone)]),
                "lostFinally": .to(machine(.unavailable), [.cancelCall, .scanning(false), .fail([1, 2], gone)]),
            ]),
        Row(
            name: "stopping", machine: machine(.stopping),
            outcomes: [
                "clientAdded": .to(machine(.stopping, [2: two]), []),
                "clientAddedAgain": .to(machine(.stopping, [1: one]), []),
                "clientRemoved": .to(machine(.stopping), []), "clientRemovedUnknown": .to(machine(.stopping), []),
                "paused": .to(machine(.stopping, pauses: 1), []), "resumed": .refused,
                "startAnswered": .refused, "startFailedInProgress": .refused, "startFailed": .refused,
                "stopAnswered": .to(machine(.off), []),
                "available": .to(machine(.stopping), []),
                "lost": .to(machine(.unavailable), [.cancelCall]),
                "lostFinally": .to(machine(.unavailable), [.cancelCall]),
            ]),
        Row(
            name: "off, paused by a connection", machine: machine(.off, [1: one], pauses: 1),
            outcomes: [
                "clientAdded": .to(machine(.off, [1: one, 2: two], pauses: 1), []),
                "clientAddedAgain": .refused,
                "clientRemoved": .to(machine(.off, pauses: 1), []),
                "clientRemovedUnknown": .to(machine(.off, [1: one], pauses: 1), []),
                "paused": .to(machine(.off, [1: one], pauses: 2), []),
                "resumed": .to(machine(.starting(filterOne), [1: one]), [.start(filterOne)]),
                "startAnswered": .refused, "startFailedInProgress": .refused, "startFailed": .refused,
                "stopAnswered": .refused, "available": .to(machine(.off, [1: one], pauses: 1), []),
                "lost": .to(machine(.unavailable, pauses: 1), [.fail([1], gone)]),
                "lostFinally": .to(machine(.unavailable, pauses: 1), [.fail([1], gone)]),
            ]),
    ]

    @Test func everyEventInEveryState() {
        Table(machineName: "discovery", events: Self.events, rows: Self.rows).expectEveryEventInEveryState()
    }

    @Test func theTableCoversEveryState() {
        let covered = Set(Self.rows.map { "\($0.machine.state)".prefix { $0 != "(" } })
        #expect(covered == ["unavailable", "off", "starting", "on", "changingFilter", "stopping"])
    }
}
