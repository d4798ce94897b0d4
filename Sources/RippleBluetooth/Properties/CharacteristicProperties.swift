/// The properties and permissions of a GATT characteristic, as bluetoothd lists them in
/// `GattCharacteristic1.Flags` (`"read"`, `"write-without-response"`, `"notify"`, …).
///
/// They say what a characteristic allows: reading needs ``read``, a write request ``write``, a write
/// command ``writeWithoutResponse``, notifications ``notify`` or ``indicate``. The client reads them from
/// bluetoothd; the simulator enforces them as bluetoothd does.
public struct CharacteristicProperties: OptionSet, Hashable, Sendable {
    /// The bits.
    public let rawValue: UInt32

    /// Creates the set whose bits are `rawValue`.
    /// - Parameter rawValue: The bits, one per property as the static members define them.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The value may be broadcast in advertisements (bluetoothd's `broadcast`).
    public static let broadcast = CharacteristicProperties(rawValue: 1 << 0)
    /// The value can be read (bluetoothd's `read`).
    public static let read = CharacteristicProperties(rawValue: 1 << 1)
    /// The value can be written without a response (a write command) (bluetoothd's `write-without-response`).
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 1 << 2)
    /// The value can be written with a response (a write request) (bluetoothd's `write`).
    public static let write = CharacteristicProperties(rawValue: 1 << 3)
    /// The value can be notified, without acknowledgement (bluetoothd's `notify`).
    public static let notify = CharacteristicProperties(rawValue: 1 << 4)
    /// The value can be indicated, with acknowledgement (bluetoothd's `indicate`).
    public static let indicate = CharacteristicProperties(rawValue: 1 << 5)
    /// The value can be written with an authentication signature (bluetoothd's `authenticated-signed-writes`).
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 1 << 6)
    /// More properties are in the Characteristic Extended Properties descriptor (bluetoothd's `extended-properties`).
    public static let extendedProperties = CharacteristicProperties(rawValue: 1 << 7)
    /// The value can be written with a reliable (queued, verified) write (bluetoothd's `reliable-write`).
    public static let reliableWrite = CharacteristicProperties(rawValue: 1 << 8)
    /// The Characteristic User Description descriptor can be written (bluetoothd's `writable-auxiliaries`).
    public static let writableAuxiliaries = CharacteristicProperties(rawValue: 1 << 9)
    /// Reading needs an encrypted link (bluetoothd's `encrypt-read`).
    public static let encryptRead = CharacteristicProperties(rawValue: 1 << 10)
    /// Writing needs an encrypted link (bluetoothd's `encrypt-write`).
    public static let encryptWrite = CharacteristicProperties(rawValue: 1 << 11)
    /// Reading needs an encrypted, authenticated link (bluetoothd's `encrypt-authenticated-read`).
    public static let encryptAuthenticatedRead = CharacteristicProperties(rawValue: 1 << 12)
    /// Writing needs an encrypted, authenticated link (bluetoothd's `encrypt-authenticated-write`).
    public static let encryptAuthenticatedWrite = CharacteristicProperties(rawValue: 1 << 13)
    /// Each access needs the server's authorization (bluetoothd's `authorize`).
    public static let authorize = CharacteristicProperties(rawValue: 1 << 14)
    /// Notifications and indications need an encrypted link (bluetoothd's `encrypt-notify`).
    public static let encryptNotify = CharacteristicProperties(rawValue: 1 << 15)

    /// Each property with bluetoothd's name for it, in bluetoothd's order.
    public static let names: [(CharacteristicProperties, String)] = [
        (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
        (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
        (.authenticatedSignedWrites, "authenticated-signed-writes"), (.extendedProperties, "extended-properties"),
        (.reliableWrite, "reliable-write"), (.writableAuxiliaries, "writable-auxiliaries"),
        (.encryptRead, "encrypt-read"), (.encryptWrite, "encrypt-write"),
        (.encryptAuthenticatedRead, "encrypt-authenticated-read"),
        (.encryptAuthenticatedWrite, "encrypt-authenticated-write"), (.authorize, "authorize"),
        (.encryptNotify, "encrypt-notify"),
    ]

    /// The names of the properties in the set, as `GattCharacteristic1.Flags` shows them, in bluetoothd's order.
    public var bluezNames: [String] {
        Self.names.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// Creates the set bluetoothd's names `names` list.
    /// - Parameter names: bluetoothd's names of the properties.
    /// - Returns: nil when a name is not one of bluetoothd's.
    public init?(bluezNames names: [String]) {
        var flags: CharacteristicProperties = []
        for name in names {
            guard let flag = Self.names.first(where: { $0.1 == name })?.0 else { return nil }
            flags.insert(flag)
        }
        self = flags
    }

    /// Creates the set of the properties `names` lists that this version knows, leaving out names it does
    /// not (a newer bluetoothd may list more).
    /// - Parameter names: bluetoothd's names of the properties.
    public init(bluezNamesIgnoringUnknown names: [String]) {
        var properties: CharacteristicProperties = []
        for name in names {
            if let property = Self.names.first(where: { $0.1 == name })?.0 { properties.insert(property) }
        }
        self = properties
    }

    /// Whether notifications or indications can be enabled.
    public var canNotify: Bool { !isDisjoint(with: [.notify, .indicate]) }
}
