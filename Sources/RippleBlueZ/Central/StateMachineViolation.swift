/// An event that one of the central's state machines received in a state where it cannot happen: the
/// machine stays as it was and does nothing, and the central counts the violation (see
/// ``CentralCore/violations``) instead of trapping.
///
/// Every machine documents which events it expects in which states; an event outside that (a reply to a
/// call that was cancelled, a timer that was stopped) means the central's bookkeeping and bluetoothd
/// disagree, and is worth a report, never a crash.
struct StateMachineViolation: Error, Sendable, Hashable, CustomStringConvertible {
    /// The machine: "connection", "GATT queue", "discovery", "notification session".
    let machine: String
    /// The state it was in.
    let state: String
    /// The event it received.
    let event: String

    /// "connection: `connectAnswered` cannot happen in state `idle`".
    var description: String { "\(machine): `\(event)` cannot happen in state `\(state)`" }
}
