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
