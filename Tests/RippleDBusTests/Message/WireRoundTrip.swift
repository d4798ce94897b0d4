import Testing

@testable import RippleDBus

/// Round trips through D-Bus's wire format, for the value and message tests.
enum WireRoundTrip {
    /// Writes a signal carrying `body` to wire bytes (`dbus_message_marshal`) and reads it back
    /// (`dbus_message_demarshal`, then the reader).
    static func body(_ body: [DBusValue]) throws -> [DBusValue] {
        try message(DBusMessage.signal(path: .root, interface: "org.example.Values", member: "Carried", body: body))
            .body
    }

    /// Writes `message` to wire bytes and reads it back.
    static func message(_ message: DBusMessage) throws -> DBusMessage {
        try DBusMessage(wireBytes: message.wireBytes())
    }
}
