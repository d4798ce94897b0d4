import Testing

/// How long the BLE suites wait before they call a step or a test hung.
///
/// Alone, the slowest test here takes about a second. In a full parallel run (every suite of the package at
/// once, their tasks queued on one cooperative pool of a thread per core) under outside load, every test here
/// lasts about as long as the whole run: up to ~150 s on a 2-core machine at load 20–28, still progressing —
/// each step waits its turn in the pool's queue; slow, not stalled. The limits sit above that, so that only
/// a hang fails, and a hang still fails by name: a step that waits longer than ``step`` records an issue
/// naming it (``watched(_:seconds:sourceLocation:isolation:_:)``, a `TestSubscriber` wait's timeout), well
/// before the test's time limit ``test`` ends the test.
enum Patience {
    /// How long one step (a wait for a stream's condition, a connection, a fixture's stop) may take.
    static let step = Duration.seconds(stepSeconds)
    /// ``step`` in whole seconds.
    static let stepSeconds = 120
    /// The time limit of every test in the BLE suites (a suite's `.timeLimit(Patience.test)`).
    static let test = TimeLimitTrait.Duration.minutes(5)
}
