import RippleDBus

/// Every failure of RippleBlueZ: a ``Kind`` to switch over, and — when bluetoothd answered with an error —
/// BlueZ's original error name and message.
///
/// ```swift
/// switch error.kind {
/// case .poweredOff: showPowerHint()
/// case let .attError(code) where code == 0x05: pairFirst()
/// default: log(error)
/// }
/// ```
public struct BluetoothError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// bluetoothd is not on the bus (not running, or restarting).
        case bluetoothUnavailable
        /// The bus refused this process access to bluetoothd (its policy: run as a member of the
        /// `bluetooth` group, or as root); the central's state is ``CentralState/unauthorized``.
        case unauthorized
        /// bluetoothd has no adapter (or not the one asked for).
        case noAdapter
        /// The adapter is powered off.
        case poweredOff
        /// The peripheral is not connected (or the link dropped during the operation).
        case notConnected
        /// bluetoothd does not know the peripheral (never seen in a scan, and not stored).
        case peripheralNotFound
        /// The peripheral has no such service, characteristic or descriptor.
        case attributeNotFound
        /// The connection could not be made or was lost before GATT became usable; the message says why.
        case connectionFailed
        /// The operation did not complete in time.
        case timeout
        /// The attribute does not permit the operation (not readable, not writable, no notifications).
        case notPermitted
        /// The peripheral requires an authenticated (paired, encrypted) link, or pairing failed, was
        /// rejected or was cancelled (ATT's Insufficient Authentication; pair first).
        case insufficientAuthentication
        /// The peripheral does not authorise this client for the operation (ATT's Insufficient
        /// Authorization, bluetoothd's `NotAuthorized`).
        case insufficientAuthorization
        /// bluetoothd or the peripheral does not support the operation.
        case notSupported
        /// bluetoothd is busy with the same operation.
        case inProgress
        /// The peripheral answered with this ATT error code.
        case attError(UInt8)
        /// The bytes do not form a value of the requested ``Readable`` type.
        case invalidValue(ValueDecodingError)
        /// An argument is not valid (a bad UUID string, an offset beyond the value, …).
        case invalidArgument
        /// The notification buffer of a listener overflowed under ``NotificationBufferPolicy/failStream``.
        case bufferOverflow
        /// The operation was cancelled: its task was cancelled, or its subscription ended before it completed.
        case cancelled
        /// Any other failure of bluetoothd or of the bus.
        case failed
    }

    /// What went wrong.
    public var kind: Kind
    /// A sentence for people.
    public var message: String
    /// The D-Bus error name bluetoothd answered with (`org.bluez.Error.Failed`), when it did.
    public var bluezName: String?
    /// The message bluetoothd answered with, when it did.
    public var bluezMessage: String?

    /// An error of `kind` with `message`, and BlueZ's error when there was one.
    ///
    /// - Parameters:
    ///   - kind: what went wrong.
    ///   - message: a sentence for people.
    ///   - bluezName: the D-Bus error name bluetoothd answered with (`org.bluez.Error.Failed`), when it did.
    ///   - bluezMessage: the message bluetoothd answered with, when it did.
    public init(_ kind: Kind, _ message: String, bluezName: String? = nil, bluezMessage: String? = nil) {
        self.kind = kind
        self.message = message
        self.bluezName = bluezName
        self.bluezMessage = bluezMessage
    }

    /// The message, followed by BlueZ's error in brackets when there is one.
    public var description: String {
        guard let bluezName else { return message }
        return "\(message) [\(bluezName): \(bluezMessage ?? "")]"
    }
}

extension BluetoothError {
    /// bluetoothd is not on the bus.
    public static let bluetoothUnavailable = BluetoothError(
        .bluetoothUnavailable, "bluetoothd is not running on the bus")
    /// The adapter is powered off.
    public static let poweredOff = BluetoothError(.poweredOff, "the Bluetooth adapter is powered off")
    /// The peripheral is not connected.
    public static let notConnected = BluetoothError(.notConnected, "the peripheral is not connected")

    /// A timeout of `operation`.
    ///
    /// - Parameter operation: what timed out, for the message.
    /// - Returns: a ``Kind/timeout`` error.
    public static func timeout(_ operation: String) -> BluetoothError {
        BluetoothError(.timeout, "\(operation) timed out")
    }

    /// The bytes could not be decoded.
    ///
    /// - Parameter error: why the bytes are not the value.
    /// - Returns: an ``Kind/invalidValue(_:)`` error.
    public static func invalidValue(_ error: ValueDecodingError) -> BluetoothError {
        BluetoothError(.invalidValue(error), "invalid value: \(error)")
    }

    /// A value longer than an attribute holds, refused before it reaches bluetoothd.
    ///
    /// - Parameters:
    ///   - count: the value's length in bytes.
    ///   - operation: what was being done, for the message ("writing 2A19 of C0:FF:EE:00:00:01").
    /// - Returns: an ``Kind/invalidArgument`` error.
    static func valueTooLong(_ count: Int, during operation: String) -> BluetoothError {
        BluetoothError(
            .invalidArgument,
            "\(operation): \(count) bytes are more than an attribute holds (\(maximumAttributeValueLength))")
    }
}
