/// The interface and member that name a signal, validated once, when made: emitting a signal by its
/// ``DBusSignalName`` checks neither name again, however often it goes out (see
/// ``DBusExportedObject/emitSignal(_:arguments:)`` and ``DBusConnection/emitSignal(path:_:arguments:)``).
///
/// Make one for each signal an object emits, where the object is made, and keep it.
public struct DBusSignalName: Sendable, Hashable, CustomStringConvertible {
    /// The signal's interface, such as `org.freedesktop.DBus.Properties`.
    public let interface: String
    /// The signal's member name, such as `PropertiesChanged`.
    public let member: String

    /// The signal `interface.member`, once both names are found valid.
    ///
    /// - Parameters:
    ///   - interface: the signal's interface.
    ///   - member: the signal's member name.
    /// - Throws: ``DBusError/invalidArgument(_:)`` for an invalid interface or member name, or for libdbus's own
    ///   `org.freedesktop.DBus.Local` (no peer may emit on it).
    public init(interface: String, member: String) throws(DBusError) {
        try DBusNames.validateInterfaceName(interface)
        try DBusNames.validateMemberName(member)
        guard interface != DBusMessage.localInterface else {
            throw .invalidArgument("\(DBusMessage.localInterface) is reserved for libdbus's own local messages")
        }
        self.init(valid: interface, member: member)
    }

    /// Names the caller knows to be valid (the standard interfaces' signals).
    private init(valid interface: String, member: String) {
        self.interface = interface
        self.member = member
    }

    /// `org.freedesktop.DBus.Properties.PropertiesChanged`.
    public static let propertiesChanged = DBusSignalName(
        valid: DBusStandardInterface.properties, member: "PropertiesChanged")
    /// `org.freedesktop.DBus.ObjectManager.InterfacesAdded`.
    public static let interfacesAdded = DBusSignalName(
        valid: DBusStandardInterface.objectManager, member: "InterfacesAdded")
    /// `org.freedesktop.DBus.ObjectManager.InterfacesRemoved`.
    public static let interfacesRemoved = DBusSignalName(
        valid: DBusStandardInterface.objectManager, member: "InterfacesRemoved")

    /// `interface.member`.
    public var description: String { "\(interface).\(member)" }
}
