/// The properties and permissions of a ``SimulatedCharacteristic``, as bluetoothd lists them in
/// `GattCharacteristic1.Flags`.
///
/// They decide what the simulator allows: `ReadValue` needs ``read``, `WriteValue` needs ``write`` (type
/// "request") or ``writeWithoutResponse`` (type "command"), `StartNotify`/`AcquireNotify` need ``notify``
/// or ``indicate``, `AcquireWrite` needs ``writeWithoutResponse``. What is not allowed fails as bluetoothd
/// fails it.
public struct CharacteristicFlags: OptionSet, Hashable, Sendable {
    /// The bits.
    public let rawValue: UInt32

    /// Flags from their bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// "broadcast".
    public static let broadcast = CharacteristicFlags(rawValue: 1 << 0)
    /// "read".
    public static let read = CharacteristicFlags(rawValue: 1 << 1)
    /// "write-without-response".
    public static let writeWithoutResponse = CharacteristicFlags(rawValue: 1 << 2)
    /// "write".
    public static let write = CharacteristicFlags(rawValue: 1 << 3)
    /// "notify".
    public static let notify = CharacteristicFlags(rawValue: 1 << 4)
    /// "indicate".
    public static let indicate = CharacteristicFlags(rawValue: 1 << 5)
    /// "authenticated-signed-writes".
    public static let authenticatedSignedWrites = CharacteristicFlags(rawValue: 1 << 6)
    /// "extended-properties".
    public static let extendedProperties = CharacteristicFlags(rawValue: 1 << 7)
    /// "reliable-write".
    public static let reliableWrite = CharacteristicFlags(rawValue: 1 << 8)
    /// "writable-auxiliaries".
    public static let writableAuxiliaries = CharacteristicFlags(rawValue: 1 << 9)
    /// "encrypt-read".
    public static let encryptRead = CharacteristicFlags(rawValue: 1 << 10)
    /// "encrypt-write".
    public static let encryptWrite = CharacteristicFlags(rawValue: 1 << 11)
    /// "encrypt-authenticated-read".
    public static let encryptAuthenticatedRead = CharacteristicFlags(rawValue: 1 << 12)
    /// "encrypt-authenticated-write".
    public static let encryptAuthenticatedWrite = CharacteristicFlags(rawValue: 1 << 13)
    /// "authorize".
    public static let authorize = CharacteristicFlags(rawValue: 1 << 14)

    /// Each flag with bluetoothd's name for it, in bluetoothd's order.
    public static let names: [(CharacteristicFlags, String)] = [
        (.broadcast, "broadcast"), (.read, "read"), (.writeWithoutResponse, "write-without-response"),
        (.write, "write"), (.notify, "notify"), (.indicate, "indicate"),
        (.authenticatedSignedWrites, "authenticated-signed-writes"), (.extendedProperties, "extended-properties"),
        (.reliableWrite, "reliable-write"), (.writableAuxiliaries, "writable-auxiliaries"),
        (.encryptRead, "encrypt-read"), (.encryptWrite, "encrypt-write"),
        (.encryptAuthenticatedRead, "encrypt-authenticated-read"),
        (.encryptAuthenticatedWrite, "encrypt-authenticated-write"), (.authorize, "authorize"),
    ]

    /// The names of the flags set, as `GattCharacteristic1.Flags` shows them.
    public var bluezNames: [String] {
        Self.names.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// The flags named by `names` (bluetoothd's names); nil when one is unknown.
    public init?(bluezNames names: [String]) {
        var flags: CharacteristicFlags = []
        for name in names {
            guard let flag = Self.names.first(where: { $0.1 == name })?.0 else { return nil }
            flags.insert(flag)
        }
        self = flags
    }

    /// Whether notifications or indications can be enabled.
    public var canNotify: Bool { !isDisjoint(with: [.notify, .indicate]) }
}

/// The permissions of a ``SimulatedDescriptor``, as bluetoothd lists them in `GattDescriptor1.Flags`.
public struct DescriptorFlags: OptionSet, Hashable, Sendable {
    /// The bits.
    public let rawValue: UInt32

    /// Flags from their bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// "read".
    public static let read = DescriptorFlags(rawValue: 1 << 0)
    /// "write".
    public static let write = DescriptorFlags(rawValue: 1 << 1)
    /// "encrypt-read".
    public static let encryptRead = DescriptorFlags(rawValue: 1 << 2)
    /// "encrypt-write".
    public static let encryptWrite = DescriptorFlags(rawValue: 1 << 3)
    /// "encrypt-authenticated-read".
    public static let encryptAuthenticatedRead = DescriptorFlags(rawValue: 1 << 4)
    /// "encrypt-authenticated-write".
    public static let encryptAuthenticatedWrite = DescriptorFlags(rawValue: 1 << 5)
    /// "authorize".
    public static let authorize = DescriptorFlags(rawValue: 1 << 6)

    /// Each flag with bluetoothd's name for it.
    public static let names: [(DescriptorFlags, String)] = [
        (.read, "read"), (.write, "write"), (.encryptRead, "encrypt-read"), (.encryptWrite, "encrypt-write"),
        (.encryptAuthenticatedRead, "encrypt-authenticated-read"),
        (.encryptAuthenticatedWrite, "encrypt-authenticated-write"), (.authorize, "authorize"),
    ]

    /// The names of the flags set, as `GattDescriptor1.Flags` shows them.
    public var bluezNames: [String] {
        Self.names.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// The flags named by `names`; nil when one is unknown.
    public init?(bluezNames names: [String]) {
        var flags: DescriptorFlags = []
        for name in names {
            guard let flag = Self.names.first(where: { $0.1 == name })?.0 else { return nil }
            flags.insert(flag)
        }
        self = flags
    }
}
