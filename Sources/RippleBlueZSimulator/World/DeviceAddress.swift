/// A Bluetooth device address as bluetoothd shows it: six bytes in hexadecimal, upper case, separated by
/// colons (`"C0:FF:EE:00:00:01"`).
///
/// Text in lower case is accepted and shown in upper case. Text that is not an address makes an invalid
/// one (``isValid`` is false), rejected with ``SimulatorError/invalidWorld(_:)`` when used; nothing traps.
public struct DeviceAddress: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral,
    Codable
{
    /// `XX:XX:XX:XX:XX:XX` in upper case, or the text given when it is not an address.
    public let text: String
    /// Whether the text given was an address.
    public let isValid: Bool

    /// The address `text` denotes; check ``isValid``.
    public init(_ text: String) {
        let upper = text.uppercased()
        let parts = upper.split(separator: ":", omittingEmptySubsequences: false)
        let hexDigits = Set("0123456789ABCDEF")
        isValid = parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(hexDigits.contains) }
        self.text = isValid ? upper : text
    }

    /// `DeviceAddress("C0:FF:EE:00:00:01")`.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// Decodes the text form.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the text form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// The text form.
    public var description: String { text }

    /// The last component of bluetoothd's object path for the device: `dev_C0_FF_EE_00_00_01`.
    public var pathComponent: String {
        "dev_" + text.replacingOccurrences(of: ":", with: "_")
    }

    /// Orders addresses by their text.
    public static func < (lhs: DeviceAddress, rhs: DeviceAddress) -> Bool {
        lhs.text < rhs.text
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
