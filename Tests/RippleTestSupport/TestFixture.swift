import Testing

/// Something a test starts and must stop: a private bus, a simulator, loops and their threads.
public protocol TestFixture: Sendable {
    /// Stops everything the fixture started; a problem found on the way is recorded at `sourceLocation`.
    func stop(sourceLocation: SourceLocation) async
}

/// Runs `body` with a started fixture, and stops the fixture afterwards, also when `body` throws or
/// returns early.
///
/// ```swift
/// try await withFixture(CentralFixture(world: Lab.world)) { fixture in
///     let peripheral = try await fixture.connect()
///     …
/// }
/// ```
///
/// - Parameters:
///   - fixture: The fixture, just made (its initializer, or a helper that starts one and sets it up).
///   - sourceLocation: Where a problem found while stopping is recorded: the test's call.
///   - body: The test's work with the fixture.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws (the fixture is stopped first).
@discardableResult
public func withFixture<Fixture: TestFixture, Result>(
    _ fixture: Fixture, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Fixture) async throws -> Result
) async throws -> Result {
    let result: Result
    do {
        result = try await body(fixture)
    } catch {
        await fixture.stop(sourceLocation: sourceLocation)
        throw error
    }
    await fixture.stop(sourceLocation: sourceLocation)
    return result
}
