/// Why a ``DBusConnection`` closed: what its ``DBusConnection/closed`` publisher emits.
public enum DBusCloseReason: Sendable, Hashable, CustomStringConvertible {
    /// ``DBusConnection/close()`` was called, or the connection was released.
    case closedLocally
    /// The bus (or peer) went away: the daemon stopped or dropped the connection.
    case disconnected
    /// The connection could not be kept up: the error that ended it.
    case failed(DBusError)

    public var description: String {
        switch self {
        case .closedLocally: "closed locally"
        case .disconnected: "disconnected by the bus"
        case .failed(let error): "failed: \(error)"
        }
    }
}
