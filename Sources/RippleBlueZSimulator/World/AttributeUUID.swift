/// The UUID of a GATT service, characteristic or descriptor, or of an advertised service, in the form
/// bluetoothd shows it on D-Bus: 128 bits, lower case, `0000180d-0000-1000-8000-00805f9b34fb`.
///
/// It is written as a 16- or 32-bit assigned number (`0x180D`, `"180d"`, `"0x2A37"`), which expands on the
/// Bluetooth base UUID, or as a full 128-bit UUID in either case. A string that is none of these makes an
/// invalid UUID (``isValid`` is false), which the simulator rejects with ``SimulatorError/invalidWorld(_:)``
/// when the peripheral that uses it is added; nothing traps on it.
public struct AttributeUUID: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, Codable
{
    /// The canonical 128-bit lower-case form, or the text given when it is not a UUID.
    public let uuidString: String
    /// Whether the text given was a UUID.
    public let isValid: Bool

    /// The UUID `text` denotes (see the type's description); check ``isValid``.
    public init(_ text: String) {
        if let canonical = Self.canonical(text) {
            uuidString = canonical
            isValid = true
        } else {
            uuidString = text
            isValid = false
        }
    }

    /// The 16- or 32-bit assigned number `value` on the Bluetooth base UUID.
    public init(_ value: UInt32) {
        uuidString = Self.expand(value)
        isValid = true
    }

    /// `AttributeUUID("180d")`.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// `AttributeUUID(0x180D)`; a negative literal makes an invalid UUID.
    public init(integerLiteral value: Int64) {
        if let narrowed = UInt32(exactly: value) {
            self.init(narrowed)
        } else {
            self.init(String(value))
        }
    }

    /// Decodes a string in any of the accepted forms.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        self.init(text)
    }

    /// Encodes the canonical form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }

    /// The canonical form.
    public var description: String { uuidString }

    /// The 16-bit assigned number when the UUID is one on the Bluetooth base UUID, else nil.
    public var shortValue: UInt16? {
        guard isValid, uuidString.hasPrefix("0000"), uuidString.hasSuffix(Self.baseSuffix) else { return nil }
        return UInt16(uuidString.dropFirst(4).prefix(4), radix: 16)
    }

    private static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    private static func expand(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex + baseSuffix
    }

    private static func canonical(_ text: String) -> String? {
        var body = Substring(text.lowercased())
        if body.hasPrefix("0x") { body = body.dropFirst(2) }
        let hexDigits = Set("0123456789abcdef")
        if body.count == 4 || body.count == 8 {
            guard body.allSatisfy(hexDigits.contains), let value = UInt32(body, radix: 16) else { return nil }
            return expand(value)
        }
        let groups = body.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy({ $0.allSatisfy(hexDigits.contains) }) else {
            return nil
        }
        return String(body)
    }
}
