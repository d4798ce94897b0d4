/// Why a link ended, as bluetoothd reports it (`Device1.Disconnected`, BlueZ 5.83 and later; with
/// older versions the reason is ``unknown``).
public struct DisconnectionReason: Sendable, Hashable, CustomStringConvertible {
    /// bluetoothd's reason name: `org.bluez.Reason.Remote`, `org.bluez.Reason.Timeout`, ….
    public var name: String
    /// Its message: "Connection terminated by remote user".
    public var message: String

    /// A reason named `name` with `message`.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The reason was not reported.
    public static let unknown = DisconnectionReason(name: "org.bluez.Reason.Unknown", message: "the link was lost")
    /// This central (or another client of bluetoothd) disconnected.
    public static let local = DisconnectionReason(
        name: "org.bluez.Reason.Local", message: "Connection terminated by local host")

    /// The message.
    public var description: String { message }
}

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
    case disconnected(Peripheral, DisconnectionReason)
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
