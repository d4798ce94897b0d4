import Testing

/// Runs `operation` and, when it has not returned within `seconds`, records an issue naming `step`; the
/// operation goes on. A hang then says where it is, rather than only that the test's time limit passed.
///
/// - Parameters:
///   - step: what the operation waits for, as the issue should name it.
///   - seconds: how long it may take before the issue is recorded.
///   - sourceLocation: where the issue points.
///   - operation: the step.
/// - Returns: what `operation` returns.
/// - Throws: what `operation` throws.
func watched<T>(
    _ step: String, seconds: Int = Patience.stepSeconds, sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation, _ operation: () async throws -> sending T
) async rethrows -> sending T {
    let watchdog = Task {
        try await Task.sleep(for: .seconds(seconds))
        Issue.record("\(step) did not return within \(seconds) s", sourceLocation: sourceLocation)
    }
    defer { watchdog.cancel() }
    return try await operation()
}
