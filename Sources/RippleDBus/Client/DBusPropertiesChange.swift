/// One `org.freedesktop.DBus.Properties.PropertiesChanged` signal, read: which interface's properties
/// changed, their new values, and the properties whose new value the service did not send.
///
/// Emitted by ``DBusConnection/propertiesChanged(sender:path:interface:buffering:)`` and carried by
/// ``DBusObjectManagerEvent/propertiesChanged(_:_:)``.
public struct DBusPropertiesChange: Sendable, Hashable {
    /// The interface whose properties changed, such as `org.bluez.Device1`.
    public var interface: String
    /// The properties that changed, with their new values (unwrapped from their variants).
    public var changed: [String: DBusValue]
    /// The properties that changed without their new value being sent (`Get` them to learn it).
    public var invalidated: [String]

    /// A change of `interface`'s properties: `changed` with their new values, `invalidated` without.
    ///
    /// - Parameters:
    ///   - interface: the interface whose properties changed, such as `org.bluez.Device1`.
    ///   - changed: the properties that changed, with their new values (unwrapped from their variants).
    ///   - invalidated: the properties that changed without their new value being sent (`Get` them to learn it).
    public init(interface: String, changed: [String: DBusValue], invalidated: [String] = []) {
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }

    /// The signature of a `PropertiesChanged` signal's arguments: `sa{sv}as`.
    public static let signature = "sa{sv}as"

    /// Reads the arguments of a `PropertiesChanged` signal (the interface, the changed properties, the
    /// invalidated ones).
    ///
    /// - Parameter message: the signal.
    /// - Throws: ``DBusDecodingError/typeMismatch(expected:found:at:)`` with expected `"sa{sv}as"` and the message's
    ///   whole signature as found (at `""`) when the arguments are not exactly of that signature.
    public init(decoding message: DBusMessage) throws(DBusDecodingError) {
        let found = message.signature.rawValue
        guard found == Self.signature else {
            throw .typeMismatch(expected: Self.signature, found: found, at: "")
        }
        (interface, changed, invalidated) = try message.decodeArguments(
            as: String.self, [String: DBusValue].self, [String].self)
    }
}
