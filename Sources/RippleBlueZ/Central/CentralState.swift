/// Where Bluetooth stands for a ``Central``, as its ``Central/state`` publisher tells it.
public enum CentralState: Sendable, Hashable, CustomStringConvertible {
    /// Not known yet: the central has not heard from the bus.
    case unknown
    /// bluetoothd is not on the bus (not running, or restarting).
    case bluetoothUnavailable
    /// The bus refuses this process access to bluetoothd (CoreBluetooth's `unauthorized`).
    case unauthorized
    /// bluetoothd has no adapter, or not the one the central was told to use.
    case noAdapter
    /// The adapter is powered off.
    case poweredOff
    /// The adapter is powered on: operations can run.
    case poweredOn

    /// The error an operation fails with in this state (nil when powered on).
    public var error: BluetoothError? {
        switch self {
        case .poweredOn: nil
        case .unknown, .bluetoothUnavailable: .bluetoothUnavailable
        case .unauthorized:
            BluetoothError(
                .unauthorized,
                "the bus does not allow this process to talk to bluetoothd (add the user to the 'bluetooth' group)")
        case .noAdapter: BluetoothError(.noAdapter, "there is no Bluetooth adapter")
        case .poweredOff: .poweredOff
        }
    }

    /// "powered on", "bluetoothd unavailable", ….
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .bluetoothUnavailable: "bluetoothd unavailable"
        case .unauthorized: "not authorised on the bus"
        case .noAdapter: "no adapter"
        case .poweredOff: "powered off"
        case .poweredOn: "powered on"
        }
    }
}
