/// bluetoothd's bus name, object paths and D-Bus interface names, as BlueZ's `doc/org.bluez.*.rst` spell them.
public enum BlueZInterface: Sendable {
    /// The well-known bus name bluetoothd owns: `org.bluez`.
    public static let serviceName = "org.bluez"
    /// The object path of bluetoothd's managers (agents, GATT applications, advertisements): `/org/bluez`.
    public static let rootPath = "/org/bluez"

    /// An adapter (a controller): `org.bluez.Adapter1`.
    public static let adapter = "org.bluez.Adapter1"
    /// A remote device: `org.bluez.Device1`.
    public static let device = "org.bluez.Device1"
    /// A remote device's battery level: `org.bluez.Battery1`.
    public static let battery = "org.bluez.Battery1"
    /// A GATT service: `org.bluez.GattService1`.
    public static let gattService = "org.bluez.GattService1"
    /// A GATT characteristic: `org.bluez.GattCharacteristic1`.
    public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    /// A GATT descriptor: `org.bluez.GattDescriptor1`.
    public static let gattDescriptor = "org.bluez.GattDescriptor1"
    /// The manager of the local GATT applications (the peripheral role): `org.bluez.GattManager1`.
    public static let gattManager = "org.bluez.GattManager1"
    /// The manager of pairing agents: `org.bluez.AgentManager1`.
    public static let agentManager = "org.bluez.AgentManager1"
    /// A pairing agent, exported by the application: `org.bluez.Agent1`.
    public static let agent = "org.bluez.Agent1"
    /// The manager of advertisements (the peripheral role): `org.bluez.LEAdvertisingManager1`.
    public static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    /// An advertisement, exported by the application: `org.bluez.LEAdvertisement1`.
    public static let advertisement = "org.bluez.LEAdvertisement1"
    /// The standard properties interface: `org.freedesktop.DBus.Properties`.
    public static let properties = "org.freedesktop.DBus.Properties"
    /// The standard object-manager interface: `org.freedesktop.DBus.ObjectManager`.
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
}

/// The D-Bus error names bluetoothd answers with (`src/error.c`), and the standard D-Bus ones a client of
/// bluetoothd meets.
public enum BlueZErrorName: Sendable {
    /// The prefix of bluetoothd's own error names: `org.bluez.Error.`.
    public static let prefix = "org.bluez.Error."

    /// bluetoothd's catch-all, read by its message ("Not connected", "Operation failed with ATT error: 0x0e").
    public static let failed = prefix + "Failed"
    /// The adapter is not ready (powered off).
    public static let notReady = prefix + "NotReady"
    /// The device is not connected.
    public static let notConnected = prefix + "NotConnected"
    /// The device is already connected.
    public static let alreadyConnected = prefix + "AlreadyConnected"
    /// The operation is not permitted (ATT read/write not permitted, or not paired).
    public static let notPermitted = prefix + "NotPermitted"
    /// The operation is not authorized (ATT insufficient authorization).
    public static let notAuthorized = prefix + "NotAuthorized"
    /// Pairing failed.
    public static let authenticationFailed = prefix + "AuthenticationFailed"
    /// The remote device or the agent rejected pairing.
    public static let authenticationRejected = prefix + "AuthenticationRejected"
    /// Pairing was cancelled.
    public static let authenticationCanceled = prefix + "AuthenticationCanceled"
    /// Pairing timed out.
    public static let authenticationTimeout = prefix + "AuthenticationTimeout"
    /// The operation is not supported.
    public static let notSupported = prefix + "NotSupported"
    /// The operation is not available now.
    public static let notAvailable = prefix + "NotAvailable"
    /// Another operation of the kind is outstanding.
    public static let inProgress = prefix + "InProgress"
    /// The object or entry already exists.
    public static let alreadyExists = prefix + "AlreadyExists"
    /// The object does not exist.
    public static let doesNotExist = prefix + "DoesNotExist"
    /// An argument is invalid.
    public static let invalidArguments = prefix + "InvalidArguments"
    /// A GATT offset is invalid.
    public static let invalidOffset = prefix + "InvalidOffset"
    /// A GATT value has an invalid length.
    public static let invalidValueLength = prefix + "InvalidValueLength"
    /// The adapter does not exist.
    public static let noSuchAdapter = prefix + "NoSuchAdapter"
    /// No pairing agent is registered.
    public static let agentNotAvailable = prefix + "AgentNotAvailable"

    /// No process owns the bus name called (bluetoothd is not running).
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// The bus name has no owner.
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// The bus's policy refuses this process the call.
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    /// The object path does not exist (any more).
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    /// The object has no such method.
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    /// The call got no reply (the callee left the bus, or the call timed out).
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    /// The call timed out.
    public static let timeout = "org.freedesktop.DBus.Error.Timeout"
    /// The call timed out (the other spelling).
    public static let timedOut = "org.freedesktop.DBus.Error.TimedOut"
    /// The bus name is owned by another connection.
    public static let addressInUse = "org.freedesktop.DBus.Error.AddressInUse"
}
