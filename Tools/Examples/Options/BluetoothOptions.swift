import ArgumentParser
import RippleBlueZSimulator
import RippleExampleSupport

/// The options every example takes: where bluetoothd is, which adapter and peripheral, how long to try;
/// ``settings`` hands them to `ExampleSession`.
public struct BluetoothOptions: ParsableArguments, Sendable {
    /// Use bluetoothd on the system bus instead of the built-in simulator.
    @Flag(help: "Use bluetoothd on the system bus (real Bluetooth) instead of the built-in simulator.")
    public var real = false

    /// The adapter to use; the lowest-numbered powered one when nil.
    @Option(help: "The adapter to use (hci0, hci1, …); by default the lowest-numbered powered one.")
    public var adapter: String?

    /// The peripheral's address; the first one found when nil.
    @Option(
        help: "The peripheral's address (AA:BB:CC:DD:EE:FF); by default the first one found.",
        transform: { text in try BluetoothAddress(text) })
    public var address: BluetoothAddress?

    /// How long the example may run before it gives up.
    @Option(help: "Give up after this many seconds.")
    public var timeout: Int = 30

    /// The order the built-in simulator sends its signals and replies in: `in-order` (the default), or
    /// `shuffled:SEED` for any order bluetoothd may send them in, drawn from SEED.
    @Option(
        help: ArgumentHelp(
            "The built-in simulator's signal order: in-order (the default), or shuffled:SEED for any order "
                + "bluetoothd may send its signals and replies in, drawn from SEED.", valueName: "order"))
    public var order: String?

    /// The defaults: the simulator in order, the default adapter, the first peripheral found, 30 seconds.
    public init() {}

    /// The options as the example session takes them.
    public var settings: ExampleSettings {
        ExampleSettings(
            real: real, adapter: adapter, address: address, timeout: timeout,
            signalOrder: order.flatMap(BlueZSimulator.SignalOrder.init) ?? .inOrder)
    }

    /// Checks the values: the timeout must be positive, and an order must name one (and only for the
    /// simulator). An address is checked as it is read.
    public func validate() throws {
        if timeout <= 0 { throw ValidationError("--timeout must be a positive number of seconds") }
        if let order {
            if real { throw ValidationError("--order is the built-in simulator's; it cannot be used with --real") }
            if BlueZSimulator.SignalOrder(order) == nil {
                throw ValidationError("--order \(order) is not an order: use in-order or shuffled:SEED (a 64-bit seed)")
            }
        }
    }
}
