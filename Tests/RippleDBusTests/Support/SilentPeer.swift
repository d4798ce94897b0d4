import CDBus

/// A bare libdbus connection that owns a name and never reads a message: calls to it get no answer until
/// it is closed, when the bus answers them with `org.freedesktop.DBus.Error.NoReply`.
final class SilentPeer: Sendable {
    private nonisolated(unsafe) var connection: OpaquePointer?
    let uniqueName: String

    init(address: String, name: String) throws {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        guard let connection = dbus_connection_open_private(address, &error),
            dbus_bus_register(connection, &error) != 0,
            dbus_bus_request_name(connection, name, UInt32(DBUS_NAME_FLAG_DO_NOT_QUEUE), &error)
                == DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER
        else {
            throw SilentPeerError.couldNotConnect
        }
        dbus_connection_set_exit_on_disconnect(connection, 0)
        self.connection = connection
        uniqueName = dbus_bus_get_unique_name(connection).map { String(cString: $0) } ?? ""
    }

    /// Disconnects from the bus.
    func close() {
        guard let connection else { return }
        self.connection = nil
        dbus_connection_close(connection)
        dbus_connection_unref(connection)
    }

    deinit {
        close()
    }
}

enum SilentPeerError: Error {
    case couldNotConnect
}
