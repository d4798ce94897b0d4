import Testing

@testable import RippleBlueZ

/// One of the central's state machines, as a transition table drives it: one event in, the actions out, or
/// a ``StateMachineViolation``.
protocol TableDrivenMachine {
    associatedtype Event
    associatedtype Action: Equatable

    mutating func handle(_ event: Event) throws(StateMachineViolation) -> [Action]
}

extension ConnectionStateMachine: TableDrivenMachine {}
extension DiscoveryStateMachine: TableDrivenMachine {}
extension GATTQueueStateMachine: TableDrivenMachine {}
extension NotificationSessionStateMachine: TableDrivenMachine {}

/// What one event does in one state of a ``TransitionTable``.
enum TransitionOutcome<Expected, Action> {
    /// Refused: a ``StateMachineViolation`` naming the machine, the machine unchanged, nothing to do.
    case refused
    /// What the machine becomes (all of it, or the part the table compares) and the actions, in order.
    case to(Expected, [Action])
}

/// A state machine's table test: named events, and rows that each start the machine somewhere and say
/// what every one of those events does there. ``expectEveryEventInEveryState(sourceLocation:)`` checks
/// each cell on a fresh copy of the row's machine.
///
/// `Expected` is what an outcome compares the machine with: the whole machine, or a part of it (the
/// connection machine's state).
struct TransitionTable<Machine: TableDrivenMachine, Expected: Equatable> {
    typealias Outcome = TransitionOutcome<Expected, Machine.Action>

    /// One start: its name in failure messages, the machine, and what each event (by name) does to it.
    struct Row {
        let name: String
        let machine: Machine
        let outcomes: [String: Outcome]
    }

    /// The name a refusal carries (``StateMachineViolation/machine``).
    let machineName: String
    /// The events, by the names the rows use.
    let events: [(String, Machine.Event)]
    let rows: [Row]
    /// The part of the machine an outcome names.
    let expected: (Machine) -> Expected
    /// More checks of a refusal (the state and event it names), given the row and the event.
    var checkRefusal: (StateMachineViolation, Row, Machine.Event) -> Void = { _, _, _ in }

    /// Checks that every row names every event once, and that each event does in each row what the row
    /// says, and nothing else.
    func expectEveryEventInEveryState(sourceLocation: SourceLocation = #_sourceLocation) {
        let names = Set(events.map(\.0))
        for row in rows {
            #expect(
                Set(row.outcomes.keys) == names, "the row \(row.name) names every event once",
                sourceLocation: sourceLocation)
            for (name, event) in events {
                guard let outcome = row.outcomes[name] else { continue }
                check(row, name, event, outcome, sourceLocation)
            }
        }
    }

    private func check(
        _ row: Row, _ name: String, _ event: Machine.Event, _ outcome: Outcome, _ sourceLocation: SourceLocation
    ) {
        var machine = row.machine
        let cell = "\(row.name) + \(name)"
        switch outcome {
        case .refused:
            do {
                let actions = try machine.handle(event)
                Issue.record("\(cell): accepted with \(actions), expected a refusal", sourceLocation: sourceLocation)
            } catch {
                #expect(error.machine == machineName, "\(cell)", sourceLocation: sourceLocation)
                checkRefusal(error, row, event)
                #expect(
                    expected(machine) == expected(row.machine), "\(cell): a refusal changes nothing",
                    sourceLocation: sourceLocation)
            }
        case .to(let after, let actions):
            do {
                let performed = try machine.handle(event)
                #expect(expected(machine) == after, "\(cell)", sourceLocation: sourceLocation)
                #expect(performed == actions, "\(cell)", sourceLocation: sourceLocation)
            } catch {
                Issue.record(
                    "\(cell): refused (\(error)), expected \(after) \(actions)", sourceLocation: sourceLocation)
            }
        }
    }
}

extension TransitionTable where Expected == Machine, Machine: Equatable {
    /// A table whose outcomes name the whole machine.
    init(machineName: String, events: [(String, Machine.Event)], rows: [Row]) {
        self.init(machineName: machineName, events: events, rows: rows, expected: { $0 })
    }
}

extension TransitionOutcome: Sendable where Expected: Sendable, Action: Sendable {}

extension TransitionTable.Row: Sendable where Machine: Sendable, Expected: Sendable, Machine.Action: Sendable {}
