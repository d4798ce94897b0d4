import RippleBlueZ
import RippleBlueZSimulator

/// Where and how an example runs: on the built-in simulator or on bluetoothd, with which adapter and
/// peripheral, for how long.
///
/// The examples fill it from their command line (`BluetoothOptions`, in the ArgumentParser target beside
/// them), so that this target depends on Ripple's products alone and can be copied into any package.
public struct ExampleSettings: Sendable {
    /// Whether to use bluetoothd on the system bus instead of the built-in simulator.
    public var real: Bool
    /// The adapter to use; the lowest-numbered powered one when nil.
    public var adapter: String?
    /// The peripheral's address; the first one found when nil.
    public var address: BluetoothAddress?
    /// How many seconds the example may run before it gives up.
    public var timeout: Int
    /// The order the built-in simulator sends its signals and replies in.
    public var signalOrder: BlueZSimulator.SignalOrder

    /// Settings with the given values; by default the simulator in order, the default adapter, the first
    /// peripheral found, 30 seconds.
    ///
    /// - Parameters:
    ///   - real: whether to use bluetoothd on the system bus.
    ///   - adapter: the adapter; nil for the lowest-numbered powered one.
    ///   - address: the peripheral's address; nil for the first one found.
    ///   - timeout: how many seconds the example may run.
    ///   - signalOrder: the built-in simulator's signal order.
    public init(
        real: Bool = false, adapter: String? = nil, address: BluetoothAddress? = nil, timeout: Int = 30,
        signalOrder: BlueZSimulator.SignalOrder = .inOrder
    ) {
        self.real = real
        self.adapter = adapter
        self.address = address
        self.timeout = timeout
        self.signalOrder = signalOrder
    }
}

/// An example stopped: why has been printed to standard error already. The example's `main` ends with
/// status 1 on it.
public struct ExampleFailure: Error, CustomStringConvertible {
    /// What went wrong, as printed.
    public let message: String

    /// "the example failed: " and the message.
    public var description: String { "the example failed: \(message)" }
}
