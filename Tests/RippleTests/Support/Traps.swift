import Testing

/// Checks that a child process run by `#expect(processExitsWith: .failure, observing: [\.standardErrorContent])`
/// stopped on the trap whose message contains `message`, not on some other one.
///
/// Optimised builds trap without printing a precondition's message, so only debug builds compare it; the
/// exit test itself still checks that the child failed.
///
/// - Parameters:
///   - result: what the exit test observed.
///   - message: the text the trap writes to standard error, such as
///     `"API Violation: received a value before the subscription"`.
///   - sourceLocation: where a mismatch is reported.
func expectTrap(
    _ result: ExitTest.Result?, saying message: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    #if DEBUG
    let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    #expect(
        output.contains(message), "the child stopped otherwise: \(output.prefix(600))", sourceLocation: sourceLocation)
    #else
    _ = (result, message, sourceLocation)
    #endif
}

/// The messages of Ripple's misuse traps (`APIViolation`), as they appear on standard error.
enum TrapMessage {
    static let zeroDemand = "API Violation: demand must not be zero"
    static let valueBeforeSubscription = "API Violation: received a value before the subscription"
    static let unexpectedCompletion = "API Violation: received an unexpected completion"
    static let requestBeforeSubscription = "API Violation: received a request before the subscription"
    static let unrequestedValue = "API Violation: received a value that was not requested"
}
