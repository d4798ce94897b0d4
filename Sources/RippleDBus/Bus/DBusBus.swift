/// Which message bus a ``DBusConnection`` connects to.
public enum DBusBus: Sendable, Hashable, CustomStringConvertible {
    /// The system bus, where bluetoothd and other system services live (its address from
    /// `DBUS_SYSTEM_BUS_ADDRESS`, else `unix:path=/run/dbus/system_bus_socket`).
    case system
    /// The current login session's bus (its address from `DBUS_SESSION_BUS_ADDRESS`).
    case session
    /// A bus at a D-Bus server address such as `unix:path=/tmp/bus` or `unix:abstract=...` — for example
    /// the address of a ``PrivateDBusDaemon``.
    case address(String)

    /// "the system bus", "the session bus" or "the bus at <address>", for messages.
    public var description: String {
        switch self {
        case .system: "the system bus"
        case .session: "the session bus"
        case .address(let address): "the bus at \(address)"
        }
    }
}
