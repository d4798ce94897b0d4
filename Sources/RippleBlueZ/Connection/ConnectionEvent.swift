/// What happens to the central's connections, in order, from ``Central/connectionEvents``.
public enum ConnectionEvent: Sendable, Hashable {
    /// A connection attempt started.
    case connecting(Peripheral)
    /// The link is up (bluetoothd answered `Connect()` or signalled `Connected`); GATT is not usable yet.
    case connected(Peripheral)
    /// The services are resolved: GATT is usable.
    case ready(Peripheral)
    /// The attempt failed.
    case connectionFailed(Peripheral, BluetoothError)
    /// A connected peripheral's link ended.
    case disconnected(Peripheral, DisconnectReason)
    /// A peripheral under a ``ReconnectPolicy`` is ready again after its link dropped, and its listeners
    /// are being re-armed (after its own `connecting`, `connected` and `ready`).
    case autoConnected(Peripheral)

    /// The peripheral the event is about.
    public var peripheral: Peripheral {
        switch self {
        case .connecting(let peripheral), .connected(let peripheral), .ready(let peripheral),
            .connectionFailed(let peripheral, _), .disconnected(let peripheral, _), .autoConnected(let peripheral):
            peripheral
        }
    }
}
