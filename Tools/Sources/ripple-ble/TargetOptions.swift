import ArgumentParser

/// Where a command finds Bluetooth: bluetoothd on the system bus, or the built-in simulator.
struct TargetOptions: ParsableArguments {
    @Flag(help: "Use Ripple's built-in simulator (a simulated bluetoothd on a private bus) instead of BlueZ.")
    var simulated = false

    @Flag(help: "Use bluetoothd on the system bus, and fail instead of falling back to the simulator.")
    var real = false

    @Option(
        help: ArgumentHelp("The world the simulator serves (.json, .yaml); implies --simulated.", valueName: "file"))
    var world: String?

    @Option(help: "The adapter to use (hci0, hci1, …); by default the lowest-numbered powered one.")
    var adapter: String?

    @Option(help: "Give up scanning for or connecting to a peripheral after this many seconds.")
    var timeout: Double = 30

    /// Checks that the choices agree and the timeout is positive.
    func validate() throws {
        if real && (simulated || world != nil) {
            throw ValidationError("--real cannot be used with --simulated or --world")
        }
        if !(timeout > 0) || !timeout.isFinite {
            throw ValidationError("--timeout must be a positive number of seconds")
        }
    }

    /// The timeout as a `Duration`.
    var timeLimit: Duration { .milliseconds(Int64(timeout * 1000)) }
}
