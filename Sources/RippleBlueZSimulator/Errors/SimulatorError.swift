import RippleDBus

/// Why the simulator could not do what its user asked.
public enum SimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The world (or a peripheral, adapter, source or fault added to it) is not valid: a malformed UUID
    /// or address, two adapters of one name, an unknown adapter, …
    case invalidWorld(String)
    /// No peripheral with this address is in the world.
    case unknownPeripheral(BluetoothAddress)
    /// The peripheral has no characteristic (or descriptor) of this UUID.
    case unknownAttribute(BluetoothUUID)
    /// The operation needs the peripheral connected, and it is not.
    case notConnected(BluetoothAddress)
    /// The simulator is not running (never started, or stopped).
    case notRunning
    /// The bus failed: the private daemon could not start, the connection broke, or `org.bluez` is owned by
    /// someone else.
    case bus(DBusError)

    /// A sentence saying what went wrong.
    public var description: String {
        switch self {
        case .invalidWorld(let reason): "invalid simulated world: \(reason)"
        case .unknownPeripheral(let address): "no simulated peripheral has the address \(address)"
        case .unknownAttribute(let uuid): "the peripheral has no attribute \(uuid)"
        case .notConnected(let address): "the simulated peripheral \(address) is not connected"
        case .notRunning: "the simulator is not running"
        case .bus(let error): "the simulator's bus failed: \(error)"
        }
    }
}
