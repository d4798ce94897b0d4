import RippleDBus

/// An error as bluetoothd answers it on D-Bus: an `org.bluez.Error.*` name and a message.
///
/// The simulator replies to a failed method call with exactly this name and message. The constants and
/// factories below carry BlueZ's own names and messages (from bluetoothd's `src/error.c` and its GATT
/// client), so that a client under test sees what it would see from a real bluetoothd.
///
/// Read and write handlers of a ``SimulatedCharacteristic`` throw a `BlueZError` to fail an operation;
/// ``attError(_:)`` turns an ATT error code into the error bluetoothd reports for it.
public struct BlueZError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The D-Bus error name (`org.bluez.Error.Failed`).
    public let name: String
    /// The human-readable message bluetoothd sends with it.
    public let message: String

    /// An error named `name` (any valid D-Bus error name, normally `org.bluez.Error.*`) with `message`.
    ///
    /// - Parameters:
    ///   - name: the D-Bus error name (`org.bluez.Error.Failed`).
    ///   - message: the human-readable message bluetoothd sends with it.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// `name: message`.
    public var description: String { "\(name): \(message)" }

    /// The error as a D-Bus method-call failure.
    var dbusError: DBusError { .remote(name: name, message: message) }

    /// `org.bluez.Error.Failed` with `message` (bluetoothd's catch-all, e.g. "Not connected").
    ///
    /// - Parameter message: the message.
    /// - Returns: the error.
    public static func failed(_ message: String) -> BlueZError {
        BlueZError(name: BlueZErrorName.failed, message: message)
    }

    /// `org.bluez.Error.InvalidArguments` "Invalid arguments in method call".
    public static let invalidArguments = invalidArguments("Invalid arguments in method call")

    /// `org.bluez.Error.InvalidArguments` with `message` ("Invalid offset", "Invalid Length", …).
    ///
    /// - Parameter message: the message.
    /// - Returns: the error.
    public static func invalidArguments(_ message: String) -> BlueZError {
        BlueZError(name: BlueZErrorName.invalidArguments, message: message)
    }

    /// `org.bluez.Error.InProgress` "In Progress": another operation of the kind is outstanding.
    public static let inProgress = BlueZError(name: BlueZErrorName.inProgress, message: "In Progress")

    /// `org.bluez.Error.InProgress` "Operation already in progress" (bluetoothd's "busy").
    public static let busy = BlueZError(name: BlueZErrorName.inProgress, message: "Operation already in progress")

    /// `org.bluez.Error.AlreadyExists` "Already Exists".
    public static let alreadyExists = BlueZError(name: BlueZErrorName.alreadyExists, message: "Already Exists")

    /// `org.bluez.Error.NotSupported` "Operation is not supported".
    public static let notSupported = BlueZError(
        name: BlueZErrorName.notSupported, message: "Operation is not supported")

    /// `org.bluez.Error.NotConnected` "Not Connected".
    public static let notConnected = BlueZError(name: BlueZErrorName.notConnected, message: "Not Connected")

    /// `org.bluez.Error.AlreadyConnected` "Already Connected".
    public static let alreadyConnected = BlueZError(name: BlueZErrorName.alreadyConnected, message: "Already Connected")

    /// `org.bluez.Error.NotAvailable` "Operation currently not available".
    public static let notAvailable = BlueZError(
        name: BlueZErrorName.notAvailable, message: "Operation currently not available")

    /// `org.bluez.Error.DoesNotExist` "Does Not Exist".
    public static let doesNotExist = BlueZError(name: BlueZErrorName.doesNotExist, message: "Does Not Exist")

    /// `org.bluez.Error.NotAuthorized` "Operation Not Authorized".
    public static let notAuthorized = BlueZError(
        name: BlueZErrorName.notAuthorized, message: "Operation Not Authorized")

    /// `org.bluez.Error.NotPermitted` with `message` ("Read not permitted", "Write not permitted", …).
    ///
    /// - Parameter message: the message.
    /// - Returns: the error.
    public static func notPermitted(_ message: String) -> BlueZError {
        BlueZError(name: BlueZErrorName.notPermitted, message: message)
    }

    /// `org.bluez.Error.NotReady` "Resource Not Ready" (e.g. the adapter is powered off).
    public static let notReady = BlueZError(name: BlueZErrorName.notReady, message: "Resource Not Ready")

    /// `org.bluez.Error.NoSuchAdapter` "No such adapter".
    public static let noSuchAdapter = BlueZError(name: BlueZErrorName.noSuchAdapter, message: "No such adapter")

    /// `org.bluez.Error.AgentNotAvailable` "Agent Not Available".
    public static let agentNotAvailable = BlueZError(
        name: BlueZErrorName.agentNotAvailable, message: "Agent Not Available")

    /// `org.bluez.Error.AuthenticationRejected` "Authentication Rejected".
    public static let authenticationRejected = BlueZError(
        name: BlueZErrorName.authenticationRejected, message: "Authentication Rejected")

    /// `org.bluez.Error.AuthenticationFailed` "Authentication Failed".
    public static let authenticationFailed = BlueZError(
        name: BlueZErrorName.authenticationFailed, message: "Authentication Failed")

    /// What bluetoothd answers a GATT operation that the peripheral failed with the ATT error `code`:
    /// `0x02`/`0x03` → NotPermitted "Read/Write not permitted"; `0x05`/`0x0F`/`0x0C` → NotPermitted
    /// "Not paired"; `0x07` → InvalidArguments "Invalid offset"; `0x0D` → InvalidArguments "Invalid
    /// Length"; `0x08` → NotAuthorized; `0x06` → NotSupported; `0` → Failed "Operation failed"; any
    /// other → Failed "Operation failed with ATT error: 0x…".
    ///
    /// - Parameter code: the ATT error code.
    /// - Returns: bluetoothd's error for it.
    public static func attError(_ code: UInt8) -> BlueZError {
        switch code {
        case 0x02: return notPermitted("Read not permitted")
        case 0x03: return notPermitted("Write not permitted")
        case 0x05, 0x0F, 0x0C: return notPermitted("Not paired")
        case 0x07: return invalidArguments("Invalid offset")
        case 0x0D: return invalidArguments("Invalid Length")
        case 0x08: return notAuthorized
        case 0x06: return notSupported
        case 0x00: return failed("Operation failed")
        default:
            return failed("Operation failed with ATT error: 0x" + Hex.digits(of: code, uppercase: false))
        }
    }
}
