import ArgumentParser

/// How many values an example takes before it disconnects (`--count`, 10 by default).
public struct MeasurementCount: ParsableArguments, Sendable {
    /// The number of values.
    @Option(name: .customLong("count"), help: "How many measurements to take before disconnecting.")
    public var value = 10

    /// Ten.
    public init() {}

    /// Checks that the count is positive.
    public func validate() throws {
        if value <= 0 { throw ValidationError("--count must be positive") }
    }
}
