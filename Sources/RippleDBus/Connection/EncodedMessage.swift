import CDBus

/// A message encoded into a libdbus `DBusMessage`, owned: made on the sending thread (where encoding
/// errors are thrown), handed to the loop thread, which sends it; released when the last reference goes.
///
/// libdbus messages are reference counted and safe to hand between threads; once built, this one is only
/// read (sent), never changed.
final class EncodedMessage: Sendable {
    /// The libdbus message (one reference, owned).
    nonisolated(unsafe) let raw: OpaquePointer

    /// Encodes `message`; throws ``DBusError/invalidArgument(_:)`` when it is not valid D-Bus.
    init(_ message: DBusMessage) throws(DBusError) {
        raw = try message.makeLibDBusMessage()
    }

    /// Encodes the signal `name` from `path` with `body`, without checking the names again (a
    /// ``DBusSignalName`` is valid); throws ``DBusError/invalidArgument(_:)`` when the body cannot be written.
    init(signal name: DBusSignalName, path: DBusObjectPath, body: [DBusValue]) throws(DBusError) {
        raw = try DBusMessage.signal(path: path, name, body: body).makeLibDBusMessage(checkingHeaderNames: false)
    }

    deinit {
        dbus_message_unref(raw)
    }
}
