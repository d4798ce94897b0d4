/// The faults waiting for one peripheral's operations (loop-confined: touched only on the simulator's
/// loop thread).
///
/// Rules are kept in the order they were injected; an operation takes the first rule that matches it,
/// which is spent after its count of uses.
final class FaultBook: Sendable {
    private struct Rule {
        let operation: SimulatedOperation
        let fault: OperationFault
        /// Uses left; nil for every time.
        var remaining: Int?
    }

    private nonisolated(unsafe) var rules: [Rule] = []

    /// Adds `fault` for the next `times` calls of `operation` (nil: every call).
    func add(_ fault: OperationFault, on operation: SimulatedOperation, times: Int?) {
        rules.append(Rule(operation: operation, fault: fault, remaining: times))
    }

    /// The fault the next call of `operation` meets, spending one use of it; nil when it goes normally.
    func take(_ operation: SimulatedOperation) -> OperationFault? {
        guard let index = rules.firstIndex(where: { $0.operation == operation }) else { return nil }
        let fault = rules[index].fault
        if let remaining = rules[index].remaining {
            if remaining <= 1 {
                rules.remove(at: index)
            } else {
                rules[index].remaining = remaining - 1
            }
        }
        return fault
    }

    /// Removes every rule.
    func removeAll() {
        rules.removeAll()
    }

    /// Whether no rule waits.
    var isEmpty: Bool { rules.isEmpty }
}
