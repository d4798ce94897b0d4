/// A property of a ``DBusInterface``: name, type, access, initial value, and how its changes are announced.
///
/// The exported object stores the value; `org.freedesktop.DBus.Properties` (`Get`, `GetAll`, `Set`) is
/// answered from it, and ``DBusExportedObject/setProperty(_:of:to:)`` changes it locally.
public struct DBusProperty: Sendable {
    /// Who may read and write the property over D-Bus (local code may always do both).
    public enum Access: Sendable, Hashable {
        /// Readable only: a remote `Set` is answered `org.freedesktop.DBus.Error.PropertyReadOnly`.
        case read
        /// Readable and writable.
        case readWrite
        /// Writable only: a remote `Get` is answered `org.freedesktop.DBus.Error.AccessDenied`, and
        /// `GetAll` leaves it out.
        case write

        /// `read`, `readwrite` or `write`, as introspection writes it.
        var introspectionName: String {
            switch self {
            case .read: "read"
            case .readWrite: "readwrite"
            case .write: "write"
            }
        }

        var isReadable: Bool { self != .write }
        var isWritable: Bool { self != .read }
    }

    /// How a change of the value is announced (the `org.freedesktop.DBus.Property.EmitsChangedSignal`
    /// annotation).
    public enum ChangeEmission: Sendable, Hashable {
        /// `PropertiesChanged` carries the new value (annotation `true`, the default).
        case emitsChange
        /// `PropertiesChanged` lists the name among the invalidated properties, without the value.
        case invalidates
        /// No signal (annotation `false`): clients must ask.
        case none

        /// The annotation's value.
        var annotationValue: String {
            switch self {
            case .emitsChange: "true"
            case .invalidates: "invalidates"
            case .none: "false"
            }
        }
    }

    /// The property's name (`Powered`).
    public let name: String
    /// The type of its value (`b`); every value stored must have exactly this type.
    public let type: DBusType
    /// Who may read and write it remotely.
    public let access: Access
    /// The value the object starts with; nil when the property starts absent (see
    /// ``init(absent:type:access:changeEmission:validateWrite:)``).
    public let initialValue: DBusValue?
    /// How its changes are announced.
    public let changeEmission: ChangeEmission
    /// Checks a remote `Set` (on the loop thread) before the value is stored: throwing refuses it, and
    /// the caller gets the error (a ``DBusError/remote(name:message:)`` as that D-Bus error, other cases as
    /// `org.freedesktop.DBus.Error.Failed`). Not called for local changes.
    public let validateWrite: (@Sendable (DBusValue) throws(DBusError) -> Void)?

    /// A property of `type` starting at `initialValue` (which must have that type: checked when the
    /// interface is added to an object).
    ///
    /// - Parameters:
    ///   - name: the property's name (`Powered`).
    ///   - type: the type of its value (`b`); every value stored must have exactly this type.
    ///   - access: who may read and write it remotely.
    ///   - initialValue: the value the object starts with; nil when the property starts absent (see
    ///     ``init(absent:type:access:changeEmission:validateWrite:)``).
    ///   - changeEmission: how its changes are announced.
    ///   - validateWrite: checks a remote `Set` (on the loop thread) before the value is stored: throwing refuses it,
    ///     and the caller gets the error (a ``DBusError/remote(name:message:)`` as that D-Bus error, other cases as
    ///     `org.freedesktop.DBus.Error.Failed`).
    public init(
        name: String,
        type: DBusType,
        access: Access = .read,
        initialValue: DBusValue,
        changeEmission: ChangeEmission = .emitsChange,
        validateWrite: (@Sendable (DBusValue) throws(DBusError) -> Void)? = nil
    ) {
        self.name = name
        self.type = type
        self.access = access
        self.initialValue = initialValue
        self.changeEmission = changeEmission
        self.validateWrite = validateWrite
    }

    /// A property of `type` that starts without a value, as BlueZ's `RSSI` before a device is seen: `Get`
    /// answers `org.freedesktop.DBus.Error.UnknownProperty` and `GetAll` leaves it out until
    /// ``DBusExportedObject/setProperty(_:of:to:)`` gives it one, and again after
    /// ``DBusExportedObject/invalidateProperty(_:of:)``.
    ///
    /// - Parameters:
    ///   - name: the property's name (`Powered`).
    ///   - type: the type of its value (`b`); every value stored must have exactly this type.
    ///   - access: who may read and write it remotely.
    ///   - changeEmission: how its changes are announced.
    ///   - validateWrite: checks a remote `Set` (on the loop thread) before the value is stored: throwing refuses it,
    ///     and the caller gets the error (a ``DBusError/remote(name:message:)`` as that D-Bus error, other cases as
    ///     `org.freedesktop.DBus.Error.Failed`).
    public init(
        absent name: String,
        type: DBusType,
        access: Access = .read,
        changeEmission: ChangeEmission = .emitsChange,
        validateWrite: (@Sendable (DBusValue) throws(DBusError) -> Void)? = nil
    ) {
        self.name = name
        self.type = type
        self.access = access
        self.initialValue = nil
        self.changeEmission = changeEmission
        self.validateWrite = validateWrite
    }

    /// A property whose type is its initial value's.
    ///
    /// - Parameters:
    ///   - name: the property's name (`Powered`).
    ///   - access: who may read and write it remotely.
    ///   - initialValue: the value the object starts with; nil when the property starts absent (see
    ///     ``init(absent:type:access:changeEmission:validateWrite:)``).
    ///   - changeEmission: how its changes are announced.
    ///   - validateWrite: checks a remote `Set` (on the loop thread) before the value is stored: throwing refuses it,
    ///     and the caller gets the error (a ``DBusError/remote(name:message:)`` as that D-Bus error, other cases as
    ///     `org.freedesktop.DBus.Error.Failed`).
    public init(
        name: String,
        access: Access = .read,
        initialValue: DBusValue,
        changeEmission: ChangeEmission = .emitsChange,
        validateWrite: (@Sendable (DBusValue) throws(DBusError) -> Void)? = nil
    ) {
        self.init(
            name: name, type: initialValue.type, access: access, initialValue: initialValue,
            changeEmission: changeEmission, validateWrite: validateWrite)
    }
}

/// A signal an interface declares, for introspection (emitting one needs no declaration: see
/// ``DBusExportedObject/emitSignal(interface:member:arguments:)``).
public struct DBusSignalDeclaration: Sendable, Hashable {
    /// The signal's member name.
    public let name: String
    /// The signature of its arguments.
    public let signature: DBusSignature
    /// Names of its arguments, by position (missing ones are left unnamed).
    public let argumentNames: [String]

    /// A signal `name` with arguments of `signature`.
    ///
    /// - Parameters:
    ///   - name: the signal's member name.
    ///   - signature: the signature of its arguments.
    ///   - argumentNames: the names of its arguments, by position (missing ones are left unnamed).
    public init(name: String, signature: DBusSignature = .empty, argumentNames: [String] = []) {
        self.name = name
        self.signature = signature
        self.argumentNames = argumentNames
    }
}
