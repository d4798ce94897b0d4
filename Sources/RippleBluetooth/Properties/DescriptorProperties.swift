/// The permissions of a GATT descriptor, as bluetoothd lists them in `GattDescriptor1.Flags` (`"read"`,
/// `"write"`, `"encrypt-read"`, …).
///
/// They say what centrals may do with a descriptor and what the link needs for it. The peripheral role
/// declares them to bluetoothd; the simulator enforces them as bluetoothd does.
public struct DescriptorProperties: OptionSet, Hashable, Sendable {
    /// The bits.
    public let rawValue: UInt32

    /// Creates the set whose bits are `rawValue`.
    ///
    /// - Parameter rawValue: The bits, one per permission as the static members define them.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Centrals may read the descriptor (bluetoothd's `read`).
    public static let read = DescriptorProperties(rawValue: 1 << 0)
    /// Centrals may write the descriptor (bluetoothd's `write`).
    public static let write = DescriptorProperties(rawValue: 1 << 1)
    /// Reading needs an encrypted link (bluetoothd's `encrypt-read`).
    public static let encryptRead = DescriptorProperties(rawValue: 1 << 2)
    /// Writing needs an encrypted link (bluetoothd's `encrypt-write`).
    public static let encryptWrite = DescriptorProperties(rawValue: 1 << 3)
    /// Reading needs an encrypted, authenticated link (bluetoothd's `encrypt-authenticated-read`).
    public static let encryptAuthenticatedRead = DescriptorProperties(rawValue: 1 << 4)
    /// Writing needs an encrypted, authenticated link (bluetoothd's `encrypt-authenticated-write`).
    public static let encryptAuthenticatedWrite = DescriptorProperties(rawValue: 1 << 5)
    /// Each access needs the server's authorization (bluetoothd's `authorize`).
    public static let authorize = DescriptorProperties(rawValue: 1 << 6)

    /// Each permission with bluetoothd's name for it, in bluetoothd's order.
    public static let names: [(DescriptorProperties, String)] = [
        (.read, "read"), (.write, "write"), (.encryptRead, "encrypt-read"), (.encryptWrite, "encrypt-write"),
        (.encryptAuthenticatedRead, "encrypt-authenticated-read"),
        (.encryptAuthenticatedWrite, "encrypt-authenticated-write"), (.authorize, "authorize"),
    ]

    /// The names of the permissions in the set, as `GattDescriptor1.Flags` shows them, in bluetoothd's order.
    public var bluezNames: [String] {
        Self.names.compactMap { contains($0.0) ? $0.1 : nil }
    }

    /// Creates the set bluetoothd's names `names` list.
    ///
    /// - Parameter names: bluetoothd's names of the permissions.
    /// - Returns: nil when a name is not one of bluetoothd's.
    public init?(bluezNames names: [String]) {
        var properties: DescriptorProperties = []
        for name in names {
            guard let property = Self.names.first(where: { $0.1 == name })?.0 else { return nil }
            properties.insert(property)
        }
        self = properties
    }
}
