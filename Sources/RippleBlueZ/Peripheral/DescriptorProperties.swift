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
