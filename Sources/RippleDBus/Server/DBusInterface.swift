/// An interface an exported object implements: its name, methods, properties and the signals it declares.
///
/// Validated when added to an object (``DBusExportedObject/init(path:interfaces:)``,
/// ``DBusExportedObject/addInterface(_:)``): names must be valid D-Bus names, unique per kind, signatures
/// valid, initial values of their property's type, and the name must not be one of the standard
/// interfaces the connection implements itself (`org.freedesktop.DBus.Properties`, `Introspectable`,
/// `Peer`, `ObjectManager`).
public struct DBusInterface: Sendable {
    /// The interface name (`org.bluez.Adapter1`).
    public let name: String
    /// Its methods.
    public let methods: [DBusMethod]
    /// Its properties.
    public let properties: [DBusProperty]
    /// The signals it declares (for introspection).
    public let signals: [DBusSignalDeclaration]

    /// An interface `name` with these members.
    ///
    /// - Parameters:
    ///   - name: the interface name (`org.bluez.Adapter1`).
    ///   - methods: its methods.
    ///   - properties: its properties.
    ///   - signals: the signals it declares (for introspection).
    public init(
        name: String,
        methods: [DBusMethod] = [],
        properties: [DBusProperty] = [],
        signals: [DBusSignalDeclaration] = []
    ) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
    }

    /// Throws ``DBusError/invalidArgument(_:)`` saying what breaks the rules in the type's documentation.
    func validate() throws(DBusError) {
        try DBusNames.validateInterfaceName(name)
        if DBusStandardInterface.all.contains(name) {
            throw .invalidArgument("the interface \(name) is implemented by the connection itself")
        }
        var seen = Set<String>()
        for method in methods {
            try DBusNames.validateMemberName(method.name)
            guard seen.insert(method.name).inserted else {
                throw .invalidArgument("the interface \(name) has two methods named \(method.name)")
            }
            try method.inputSignature.validate()
            try method.outputSignature.validate()
        }
        seen = []
        for property in properties {
            try DBusNames.validateMemberName(property.name)
            guard seen.insert(property.name).inserted else {
                throw .invalidArgument("the interface \(name) has two properties named \(property.name)")
            }
            _ = try DBusSignature(validating: [property.type])
            if let initialValue = property.initialValue {
                try property.check(initialValue)
            }
        }
        seen = []
        for signal in signals {
            try DBusNames.validateMemberName(signal.name)
            guard seen.insert(signal.name).inserted else {
                throw .invalidArgument("the interface \(name) has two signals named \(signal.name)")
            }
            try signal.signature.validate()
        }
    }
}

extension DBusProperty {
    /// Throws ``DBusError/invalidArgument(_:)`` when `value` does not have the property's type or cannot
    /// be written.
    func check(_ value: DBusValue) throws(DBusError) {
        guard value.type == type else {
            throw .invalidArgument(
                "the property \(name) has type '\(type.signature)', not '\(value.type.signature)'")
        }
        _ = try DBusBodyWriter.validate([value])
    }
}

/// The names of the standard interfaces the connection implements for exported objects.
enum DBusStandardInterface {
    static let properties = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let all: Set<String> = [properties, introspectable, peer, objectManager]
}

/// The standard D-Bus error names the server side replies.
enum DBusStandardError {
    static let failed = "org.freedesktop.DBus.Error.Failed"
    static let noReply = "org.freedesktop.DBus.Error.NoReply"
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
}
