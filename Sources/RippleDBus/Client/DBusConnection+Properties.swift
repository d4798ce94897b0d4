import Ripple

/// `org.freedesktop.DBus.Properties`, the standard interface for reading and writing an object's
/// properties and hearing about their changes.
private let propertiesInterface = "org.freedesktop.DBus.Properties"

extension DBusConnection {
    /// A publisher of the value of the property `interface.name` of the object at `path` owned by
    /// `destination` (`org.freedesktop.DBus.Properties.Get`), unwrapped from its variant; it emits once,
    /// then finishes.
    ///
    /// Fails with the service's error, such as `org.freedesktop.DBus.Error.UnknownProperty` (see
    /// ``DBusConnection/call(_:timeout:)`` for the other failures), and with
    /// ``DBusDecodingError/typeMismatch(expected:found:at:)`` (expected `"v"`, found the reply's signature)
    /// when the reply is not exactly one variant.
    ///
    /// - Parameters:
    ///   - destination: the bus name that owns the object (`org.bluez`).
    ///   - path: the object's path.
    ///   - interface: the interface that has the property.
    ///   - name: the property's name.
    ///   - timeout: how long to wait for the reply; nil for as long as the connection lives.
    /// - Returns: the publisher of the value.
    public func getProperty(
        destination: String,
        path: DBusObjectPath,
        interface: String,
        name: String,
        timeout: Duration? = DBusConnection.defaultCallTimeout
    ) -> DBusReplyPublisher<DBusValue> {
        DBusReplyPublisher(
            call: call(
                destination: destination, path: path, interface: propertiesInterface, member: "Get",
                arguments: [.string(interface), .string(name)], timeout: timeout),
            read: Self.readVariant)
    }

    /// A publisher of the value of the property `interface.name` decoded as `type` (an `Int16` RSSI, a
    /// `Bool` for `Powered`, …); it emits once, then finishes.
    ///
    /// Fails as ``getProperty(destination:path:interface:name:timeout:)`` does, and with
    /// ``DBusDecodingError/typeMismatch(expected:found:at:)`` when the value has another type than `type`'s
    /// (located at `property "Name"`, such as expected `"n"`, found `"s"`). Decoding never converts (an
    /// `Int32` does not decode from a `uint32`); for a value of any type, use the untyped variant.
    ///
    /// - Parameters:
    ///   - destination: the bus name that owns the object (`org.bluez`).
    ///   - path: the object's path.
    ///   - interface: the interface that has the property.
    ///   - name: the property's name.
    ///   - type: what the value decodes as.
    ///   - timeout: how long to wait for the reply; nil for as long as the connection lives.
    /// - Returns: the publisher of the decoded value.
    public func getProperty<T: DBusRepresentable>(
        destination: String,
        path: DBusObjectPath,
        interface: String,
        name: String,
        as type: T.Type,
        timeout: Duration? = DBusConnection.defaultCallTimeout
    ) -> DBusReplyPublisher<T> {
        DBusReplyPublisher(
            call: call(
                destination: destination, path: path, interface: propertiesInterface, member: "Get",
                arguments: [.string(interface), .string(name)], timeout: timeout),
            read: { reply throws(DBusError) -> T in
                let value = try Self.readVariant(reply)
                do throws(DBusDecodingError) {
                    return try T(dbusValue: value)
                } catch {
                    throw .decoding(error.located(at: "property \"\(name)\""))
                }
            })
    }

    /// A publisher of all the properties of `interface` of the object at `path` owned by `destination`
    /// (`org.freedesktop.DBus.Properties.GetAll`), by name, each unwrapped from its variant; it emits
    /// once, then finishes.
    ///
    /// Fails with the service's error (an unknown interface or object), and with
    /// ``DBusDecodingError/typeMismatch(expected:found:at:)`` (expected `"a{sv}"`, found the reply's
    /// signature) when the reply is not exactly one `a{sv}` dictionary.
    ///
    /// - Parameters:
    ///   - destination: the bus name that owns the object (`org.bluez`).
    ///   - path: the object's path.
    ///   - interface: the interface whose properties are read.
    ///   - timeout: how long to wait for the reply; nil for as long as the connection lives.
    /// - Returns: the publisher of the properties by name.
    public func getAllProperties(
        destination: String,
        path: DBusObjectPath,
        interface: String,
        timeout: Duration? = DBusConnection.defaultCallTimeout
    ) -> DBusReplyPublisher<[String: DBusValue]> {
        DBusReplyPublisher(
            call: call(
                destination: destination, path: path, interface: propertiesInterface, member: "GetAll",
                arguments: [.string(interface)], timeout: timeout),
            read: { reply throws(DBusError) -> [String: DBusValue] in
                try DBusReplyPublisher<[String: DBusValue]>.checkSignature(of: reply, is: "a{sv}")
                do throws(DBusDecodingError) {
                    return try reply.decodeArgument([String: DBusValue].self, at: 0)
                } catch {
                    throw .decoding(error)
                }
            })
    }

    /// A publisher that sets the property `interface.name` of the object at `path` owned by `destination`
    /// to `value` (`org.freedesktop.DBus.Properties.Set`, the value sent in a variant); it emits `()` once
    /// the service has accepted it, then finishes.
    ///
    /// Fails with the service's error, such as `org.freedesktop.DBus.Error.PropertyReadOnly` or
    /// `…InvalidArgs` (see ``DBusConnection/call(_:timeout:)`` for the other failures). Whatever the
    /// reply carries is ignored: `Set` returns nothing, and a service that returns something has still
    /// accepted the value.
    ///
    /// - Parameters:
    ///   - destination: the bus name that owns the object (`org.bluez`).
    ///   - path: the object's path.
    ///   - interface: the interface that has the property.
    ///   - name: the property's name.
    ///   - value: the new value.
    ///   - timeout: how long to wait for the reply; nil for as long as the connection lives.
    /// - Returns: the publisher that emits `()` once the value is accepted.
    public func setProperty(
        destination: String,
        path: DBusObjectPath,
        interface: String,
        name: String,
        value: DBusValue,
        timeout: Duration? = DBusConnection.defaultCallTimeout
    ) -> DBusReplyPublisher<Void> {
        DBusReplyPublisher(
            call: call(
                destination: destination, path: path, interface: propertiesInterface, member: "Set",
                arguments: [.string(interface), .string(name), .variant(value)], timeout: timeout),
            read: { _ in () })
    }

    /// A publisher of the changes of the properties of the object at `path`: its
    /// `org.freedesktop.DBus.Properties.PropertiesChanged` signals from `sender` (any sender when nil),
    /// about `interface` (any interface when nil: the bus filters on the signal's first argument), read as
    /// ``DBusPropertiesChange``s, in the order the bus delivered them.
    ///
    /// Never finishes on its own; fails as ``signals(matching:buffering:)`` does (the connection closing,
    /// a subscriber falling more than `buffering.limit` signals behind).
    ///
    /// A signal whose arguments are not `sa{sv}as` is not a `PropertiesChanged` signal as the
    /// specification defines it: it is skipped, and the stream carries on with the next one. (Any peer
    /// can emit a signal with this name, so letting one malformed signal end the stream would let any
    /// peer end it; the signals a real service emits are always well formed.) Changes that arrive before
    /// the subscription is in place are not received: ``synchronize()`` waits for that.
    ///
    /// - Parameters:
    ///   - sender: the sender whose signals count; nil for any.
    ///   - path: the object's path.
    ///   - interface: the interface whose changes count; nil for any.
    ///   - buffering: how many changes are kept for a subscriber without demand.
    /// - Returns: the publisher of the changes.
    public func propertiesChanged(
        sender: String? = nil,
        path: DBusObjectPath,
        interface: String? = nil,
        buffering: DBusSignalBuffering = .default
    ) -> Publishers.CompactMap<DBusSignalPublisher, DBusPropertiesChange> {
        var rule = DBusMatchRule(
            sender: sender, interface: propertiesInterface, member: "PropertiesChanged", path: path)
        if let interface {
            rule.arguments[0] = interface
        }
        return signals(matching: rule, buffering: buffering).compactMap { signal in
            try? DBusPropertiesChange(decoding: signal)
        }
    }

    /// Reads a `Get` reply: exactly one variant, unwrapped.
    private static func readVariant(_ reply: DBusMessage) throws(DBusError) -> DBusValue {
        try DBusReplyPublisher<DBusValue>.checkSignature(of: reply, is: "v")
        guard case .variant(let value)? = reply.body.first else {
            throw .decoding(.typeMismatch(expected: "v", found: reply.signature.rawValue, at: ""))
        }
        return value
    }
}
