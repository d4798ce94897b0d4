import Testing

@testable import RippleBlueZ

/// Every event in every state of a peripheral's GATT queue, with the machine it leads to (whose turn,
/// who waits, what holds) and the actions in order, or the refusal of an event that cannot happen there.
@Suite struct GATTQueueStateMachineTests {
    typealias Machine = GATTQueueStateMachine
    typealias Entry = Machine.Entry

    typealias Table = TransitionTable<Machine, Machine>
    typealias Outcome = Table.Outcome
    typealias Row = Table.Row

    static let notConnected = BluetoothError(.notConnected, "not connected")
    static let notFound = BluetoothError(.attributeNotFound, "no characteristic 2A37")
    static let timeout = BluetoothError(.timeout, "reading timed out")
    static let failure = BluetoothError(.notPermitted, "Read not permitted")

    static let plain = Entry(id: 2, urgent: false)
    static let third = Entry(id: 3, urgent: false)
    static let urgentThird = Entry(id: 3, urgent: true)

    static let events: [(String, Machine.Event)] = [
        ("enqueue", .enqueue(third)),
        ("enqueueUrgent", .enqueue(urgentThird)),
        ("enqueueFirstAgain", .enqueue(Entry(id: 1, urgent: false))),
        ("leaveCurrent", .leave(1)),
        ("leaveWaiting", .leave(2)),
        ("leaveUnknown", .leave(9)),
        ("resolved", .resolved(1)),
        ("attributeMissing", .attributeMissing(1)),
        ("unresolvable", .unresolvable(1, notConnected)),
        ("attributeWaitExpired", .attributeWaitExpired(1, notFound)),
        ("answered", .answered(1, nil)),
        ("answeredWithError", .answered(1, failure)),
        ("timedOut", .timedOut(1, timeout)),
        ("resolvedOther", .resolved(2)),
        ("answeredOther", .answered(2, nil)),
        ("holdTasks", .hold(.connectionTasks)),
        ("holdHandOver", .hold(.handOver)),
        ("releaseTasks", .release(.connectionTasks)),
        ("releaseHandOver", .release(.handOver)),
    ]

    static func machine(_ state: Machine.State, _ waiting: [Entry] = [], _ holds: Set<Machine.Hold> = []) -> Machine {
        Machine(state: state, waiting: waiting, holds: holds)
    }

    /// What a turn with operation 2 waiting shares, whatever stage operation 1 is at.
    static func turn(_ state: Machine.State) -> [String: Outcome] {
        let here = machine(state, [plain])
        return [
            "enqueue": .to(machine(state, [plain, third]), []),
            "enqueueUrgent": .to(machine(state, [urgentThird, plain]), []),
            "enqueueFirstAgain": .refused,
            "leaveWaiting": .to(machine(state), [.discard(2)]),
            "leaveUnknown": .to(here, []),
            "resolvedOther": .refused, "answeredOther": .refused,
            "holdTasks": .to(machine(state, [plain], [.connectionTasks]), []),
            "holdHandOver": .to(machine(state, [plain], [.handOver]), []),
            "releaseTasks": .to(here, []), "releaseHandOver": .to(here, []),
        ]
    }

    static let next = machine(.starting(2))

    static let rows: [Row] = [
        Row(
            name: "idle", machine: machine(.idle),
            outcomes: [
                "enqueue": .to(machine(.starting(3)), [.start(3)]),
                "enqueueUrgent": .to(machine(.starting(3)), [.start(3)]),
                "enqueueFirstAgain": .to(machine(.starting(1)), [.start(1)]),
                "leaveCurrent": .to(machine(.idle), []), "leaveWaiting": .to(machine(.idle), []),
                "leaveUnknown": .to(machine(.idle), []), "resolved": .refused, "attributeMissing": .refused,
                "unresolvable": .refused, "attributeWaitExpired": .refused, "answered": .refused,
                "answeredWithError": .refused, "timedOut": .refused, "resolvedOther": .refused,
                "answeredOther": .refused,
                "holdTasks": .to(machine(.idle, [], [.connectionTasks]), []),
                "holdHandOver": .to(machine(.idle, [], [.handOver]), []),
                "releaseTasks": .to(machine(.idle), []), "releaseHandOver": .to(machine(.idle), []),
            ]),
        Row(
            name: "starting", machine: machine(.starting(1), [plain]),
            outcomes: turn(.starting(1)).merging([
                "leaveCurrent": .to(next, [.discard(1), .start(2)]),
                "resolved": .to(machine(.calling(1), [plain]), [.call(1)]),
                "attributeMissing": .to(machine(.awaitingAttribute(1), [plain]), [.awaitAttribute(1)]),
                "unresolvable": .to(next, [.deliver(1, .failed(notConnected)), .discard(1), .start(2)]),
                "attributeWaitExpired": .refused, "answered": .refused, "answeredWithError": .refused,
                "timedOut": .to(next, [.deliver(1, .failed(timeout)), .discard(1), .start(2)]),
            ]) { _, new in new }),
        Row(
            name: "awaitingAttribute", machine: machine(.awaitingAttribute(1), [plain]),
            outcomes: turn(.awaitingAttribute(1)).merging([
                "leaveCurrent": .to(next, [.discard(1), .start(2)]),
                "resolved": .to(machine(.calling(1), [plain]), [.call(1)]),
                "attributeMissing": .refused,
                "unresolvable": .to(next, [.deliver(1, .failed(notConnected)), .discard(1), .start(2)]),
                "attributeWaitExpired": .to(next, [.deliver(1, .failed(notFound)), .discard(1), .start(2)]),
                "answered": .refused, "answeredWithError": .refused,
                "timedOut": .to(next, [.deliver(1, .failed(timeout)), .discard(1), .start(2)]),
            ]) { _, new in new }),
        Row(
            name: "calling", machine: machine(.calling(1), [plain]),
            outcomes: turn(.calling(1)).merging([
                "leaveCurrent": .to(machine(.draining(1), [plain]), []),
                "resolved": .refused, "attributeMissing": .refused, "unresolvable": .refused,
                "attributeWaitExpired": .refused,
                "answered": .to(next, [.deliver(1, .answered), .discard(1), .start(2)]),
                "answeredWithError": .to(next, [.deliver(1, .failed(failure)), .discard(1), .start(2)]),
                "timedOut": .to(machine(.draining(1), [plain]), [.deliver(1, .failed(timeout))]),
            ]) { _, new in new }),
        Row(
            name: "draining", machine: machine(.draining(1), [plain]),
            outcomes: turn(.draining(1)).merging([
                "leaveCurrent": .to(machine(.draining(1), [plain]), []),
                "resolved": .refused, "attributeMissing": .refused, "unresolvable": .refused,
                "attributeWaitExpired": .refused,
                "answered": .to(next, [.discard(1), .start(2)]),
                "answeredWithError": .to(next, [.discard(1), .start(2)]),
                "timedOut": .to(machine(.draining(1), [plain]), []),
            ]) { _, new in new }),
        Row(
            name: "idle, held by the connection tasks", machine: machine(.idle, [plain], [.connectionTasks]),
            outcomes: [
                "enqueue": .to(machine(.idle, [plain, third], [.connectionTasks]), []),
                "enqueueUrgent": .to(machine(.starting(3), [plain], [.connectionTasks]), [.start(3)]),
                "enqueueFirstAgain": .to(
                    machine(.idle, [plain, Entry(id: 1, urgent: false)], [.connectionTasks]), []),
                "leaveCurrent": .to(machine(.idle, [plain], [.connectionTasks]), []),
                "leaveWaiting": .to(machine(.idle, [], [.connectionTasks]), [.discard(2)]),
                "leaveUnknown": .to(machine(.idle, [plain], [.connectionTasks]), []),
                "resolved": .refused, "attributeMissing": .refused, "unresolvable": .refused,
                "attributeWaitExpired": .refused, "answered": .refused, "answeredWithError": .refused,
                "timedOut": .refused, "resolvedOther": .refused, "answeredOther": .refused,
                "holdTasks": .to(machine(.idle, [plain], [.connectionTasks]), []),
                "holdHandOver": .to(machine(.idle, [plain], [.connectionTasks, .handOver]), []),
                "releaseTasks": .to(next, [.start(2)]),
                "releaseHandOver": .to(machine(.idle, [plain], [.connectionTasks]), []),
            ]),
        Row(
            name: "calling, handed over", machine: machine(.calling(1), [plain], [.handOver]),
            outcomes: [
                "enqueue": .to(machine(.calling(1), [plain, third], [.handOver]), []),
                "enqueueUrgent": .to(machine(.calling(1), [urgentThird, plain], [.handOver]), []),
                "enqueueFirstAgain": .refused,
                "leaveCurrent": .to(machine(.draining(1), [plain], [.handOver]), []),
                "leaveWaiting": .to(machine(.calling(1), [], [.handOver]), [.discard(2)]),
                "leaveUnknown": .to(machine(.calling(1), [plain], [.handOver]), []),
                "resolved": .refused, "attributeMissing": .refused, "unresolvable": .refused,
                "attributeWaitExpired": .refused,
                // The urgent operations do not go while the queue is lent.
                "answered": .to(machine(.idle, [plain], [.handOver]), [.deliver(1, .answered), .discard(1)]),
                "answeredWithError": .to(
                    machine(.idle, [plain], [.handOver]), [.deliver(1, .failed(failure)), .discard(1)]),
                "timedOut": .to(machine(.draining(1), [plain], [.handOver]), [.deliver(1, .failed(timeout))]),
                "resolvedOther": .refused, "answeredOther": .refused,
                "holdTasks": .to(machine(.calling(1), [plain], [.handOver, .connectionTasks]), []),
                "holdHandOver": .to(machine(.calling(1), [plain], [.handOver]), []),
                "releaseTasks": .to(machine(.calling(1), [plain], [.handOver]), []),
                "releaseHandOver": .to(machine(.calling(1), [plain]), []),
            ]),
    ]

    @Test func everyEventInEveryState() {
        Table(machineName: "GATT queue", events: Self.events, rows: Self.rows).expectEveryEventInEveryState()
    }

    @Test func theTableCoversEveryState() {
        let covered = Set(Self.rows.map { "\($0.machine.state)".prefix { $0 != "(" } })
        #expect(covered == ["idle", "starting", "awaitingAttribute", "calling", "draining"])
    }

    /// Operations run one at a time in the order asked for; urgent ones go first.
    @Test func operationsRunInOrderOneAtATime() throws {
        var machine = Machine()
        #expect(try machine.handle(.enqueue(Entry(id: 1, urgent: false))) == [.start(1)])
        #expect(try machine.handle(.enqueue(Entry(id: 2, urgent: false))) == [])
        #expect(try machine.handle(.enqueue(Entry(id: 3, urgent: true))) == [])
        #expect(try machine.handle(.resolved(1)) == [.call(1)])
        #expect(try machine.handle(.answered(1, nil)) == [.deliver(1, .answered), .discard(1), .start(3)])
        #expect(try machine.handle(.resolved(3)) == [.call(3)])
        #expect(try machine.handle(.answered(3, nil)) == [.deliver(3, .answered), .discard(3), .start(2)])
        #expect(machine.count == 1)
    }
}
