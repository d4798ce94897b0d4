import ArgumentParser
import RippleBlueZ
import RippleBlueZSimulator
import RippleExampleSupport

extension ExampleSession {
    /// ``ExampleSession/run(_:simulating:_:)`` with the command line's options; a failure (printed
    /// already) ends the command with status 1.
    ///
    /// - Parameters:
    ///   - options: the command line's Bluetooth options.
    ///   - peripherals: the peripherals the built-in simulator serves.
    ///   - body: the example, given a ready central.
    /// - Throws: `ExitCode(1)` when the example fails; the body's other errors as they are.
    public static func run(
        _ options: BluetoothOptions, simulating peripherals: [SimulatedPeripheral],
        _ body: @escaping @Sendable (Central) async throws -> Void
    ) async throws {
        try await exitingOnFailure { try await run(options.settings, simulating: peripherals, body) }
    }
}

/// Runs `body`, turning an ``ExampleFailure`` (printed already) into ArgumentParser's `ExitCode(1)`, so
/// that the command ends with status 1 without printing it again.
///
/// - Parameter body: the command's work.
/// - Throws: `ExitCode(1)` for an ``ExampleFailure``; other errors as they are.
public func exitingOnFailure(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch is ExampleFailure {
        throw ExitCode(1)
    }
}
