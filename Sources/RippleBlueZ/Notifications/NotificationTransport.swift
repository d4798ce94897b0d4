/// How a characteristic's notifications travel from bluetoothd to this process.
///
/// The first listener of a characteristic chooses; later listeners share its session whatever they
/// ask for.
public enum NotificationTransport: Sendable, Hashable {
    /// A socket of its own (`AcquireNotify`) when the characteristic notifies and bluetoothd offers it,
    /// else `Value` changes on the bus (`StartNotify`). bluetoothd refuses the socket while another
    /// client has a `StartNotify` session on the characteristic; the listener then falls back to the bus.
    case automatic
    /// `Value` changes on the bus (`StartNotify`), as every other client sees them.
    case bus
}
