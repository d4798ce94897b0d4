/// What a served characteristic allows and what it requires of the link: the properties a central sees
/// (read, write, write without response, notify, indicate) and the security its accesses need.
///
/// ```swift
/// let properties: CharacteristicProperties = [.read, .notify, .encryptRead]
/// ```
public struct CharacteristicProperties: OptionSet, Sendable, Hashable {
    /// The bits of the set.
    public let rawValue: UInt32

    /// A set from its bits.
    ///
    /// - Parameter rawValue: the bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Centrals may read the value.
    public static let read = CharacteristicProperties(rawValue: 1 << 0)
    /// Centrals may write the value and get an answer (a Write Request).
    public static let write = CharacteristicProperties(rawValue: 1 << 1)
    /// Centrals may write the value without an answer (a Write Command).
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 1 << 2)
    /// The characteristic notifies its value (unacknowledged).
    public static let notify = CharacteristicProperties(rawValue: 1 << 3)
    /// The characteristic indicates its value (acknowledged by the central).
    public static let indicate = CharacteristicProperties(rawValue: 1 << 4)
    /// Reads need an encrypted link (the central pairs first).
    public static let encryptRead = CharacteristicProperties(rawValue: 1 << 5)
    /// Writes need an encrypted link.
    public static let encryptWrite = CharacteristicProperties(rawValue: 1 << 6)
    /// Reads need an encrypted link paired with authentication (passkey or numeric comparison).
    public static let encryptAuthenticatedRead = CharacteristicProperties(rawValue: 1 << 7)
    /// Writes need an encrypted link paired with authentication.
    public static let encryptAuthenticatedWrite = CharacteristicProperties(rawValue: 1 << 8)
    /// Notifications and indications need an encrypted link.
    public static let encryptNotify = CharacteristicProperties(rawValue: 1 << 9)

    /// The flags bluetoothd's `GattCharacteristic1.Flags` names them by, in a fixed order.
    var bluezFlags: [String] {
        Self.names.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// Whether a central can enable notifications or indications.
    var canNotify: Bool { !isDisjoint(with: [.notify, .indicate]) }

    private static let names: [(CharacteristicProperties, String)] = [
        (.read, "read"), (.writeWithoutResponse, "write-without-response"), (.write, "write"), (.notify, "notify"),
        (.indicate, "indicate"), (.encryptRead, "encrypt-read"), (.encryptWrite, "encrypt-write"),
        (.encryptAuthenticatedRead, "encrypt-authenticated-read"),
        (.encryptAuthenticatedWrite, "encrypt-authenticated-write"),
    ]
}

/// What a served descriptor allows and requires.
public struct DescriptorProperties: OptionSet, Sendable, Hashable {
    /// The bits of the set.
    public let rawValue: UInt32

    /// A set from its bits.
    ///
    /// - Parameter rawValue: the bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Centrals may read the descriptor.
    public static let read = DescriptorProperties(rawValue: 1 << 0)
    /// Centrals may write the descriptor.
    public static let write = DescriptorProperties(rawValue: 1 << 1)
    /// Reads need an encrypted link.
    public static let encryptRead = DescriptorProperties(rawValue: 1 << 2)
    /// Writes need an encrypted link.
    public static let encryptWrite = DescriptorProperties(rawValue: 1 << 3)

    /// The flags bluetoothd's `GattDescriptor1.Flags` names them by.
    var bluezFlags: [String] {
        [(Self.read, "read"), (.write, "write"), (.encryptRead, "encrypt-read"), (.encryptWrite, "encrypt-write")]
            .compactMap { contains($0.0) ? $0.1 : nil }
    }
}
