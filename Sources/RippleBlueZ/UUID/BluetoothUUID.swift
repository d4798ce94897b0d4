/// A Bluetooth UUID: 128 bits, written in its 16-bit or 32-bit form when it is on the Bluetooth Base
/// UUID (`0000xxxx-0000-1000-8000-00805F9B34FB`).
///
/// ```swift
/// let heartRate: BluetoothUUID = 0x180D
/// let vendor = try BluetoothUUID("52495054-0000-4000-8000-000000000001")
/// ```
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The high and low 64 bits.
    public let high: UInt64
    /// The low 64 bits.
    public let low: UInt64

    private static let baseHighMask: UInt64 = 0x0000_0000_FFFF_FFFF
    private static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    private static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    /// The UUID of 128 bits `high` and `low`.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The 16-bit assigned number `value` on the Base UUID.
    public init(_ value: UInt16) {
        self.init(UInt32(value))
    }

    /// The 32-bit `value` on the Base UUID.
    public init(_ value: UInt32) {
        self.init(high: UInt64(value) << 32 | Self.baseHigh, low: Self.baseLow)
    }

    /// The 16-bit assigned number `value`.
    public init(integerLiteral value: UInt16) {
        self.init(value)
    }

    /// Parses "180d", "0x180D", "0000180d" (32-bit) or the 36-character form (case-insensitive; also
    /// without dashes). Throws ``ParseError`` for anything else.
    public init(_ string: String) throws(ParseError) {
        var text = Substring(string)
        if text.hasPrefix("0x") || text.hasPrefix("0X") { text = text.dropFirst(2) }
        let isDashed = text.count == 36
        if isDashed {
            let dashes = [8, 13, 18, 23]
            for (index, character) in text.enumerated() where dashes.contains(index) != (character == "-") {
                throw ParseError(string: string, reason: "dashes belong at positions 9, 14, 19 and 24")
            }
            text = Substring(text.filter { $0 != "-" })
        }
        guard text.allSatisfy(\.isHexDigit) else { throw ParseError(string: string, reason: "not hexadecimal") }
        switch text.count {
        case 4:
            guard let value = UInt16(text, radix: 16) else { throw ParseError(string: string, reason: "not hexadecimal") }
            self.init(value)
        case 8:
            guard let value = UInt32(text, radix: 16) else { throw ParseError(string: string, reason: "not hexadecimal") }
            self.init(value)
        case 32:
            guard let high = UInt64(text.prefix(16), radix: 16), let low = UInt64(text.suffix(16), radix: 16) else {
                throw ParseError(string: string, reason: "not hexadecimal")
            }
            self.init(high: high, low: low)
        default:
            throw ParseError(string: string, reason: "a UUID has 4, 8 or 32 hexadecimal digits")
        }
    }

    /// Parses `uuidString` as ``init(_:)-(String)`` does, or nil.
    public init?(uuidString: String) {
        try? self.init(uuidString)
    }

    /// Why a string is not a UUID.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The string.
        public var string: String
        /// Why.
        public var reason: String
        /// "'xyz' is not a Bluetooth UUID: not hexadecimal".
        public var description: String { "'\(string)' is not a Bluetooth UUID: \(reason)" }
    }

    /// The 16-bit form, when it is on the Base UUID and fits.
    public var shortForm: UInt16? {
        value32.flatMap { $0 <= UInt16.max ? UInt16($0) : nil }
    }

    /// The 32-bit form, when it is on the Base UUID.
    public var value32: UInt32? {
        guard low == Self.baseLow, high & Self.baseHighMask == Self.baseHigh else { return nil }
        return UInt32(high >> 32)
    }

    /// The full lower-case 36-character form, as BlueZ writes it: `0000180d-0000-1000-8000-00805f9b34fb`.
    public var uuidString: String {
        let digits = hex(high, 16) + hex(low, 16)
        let parts = [digits.prefix(8), digits.dropFirst(8).prefix(4), digits.dropFirst(12).prefix(4),
                     digits.dropFirst(16).prefix(4), digits.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// The 16 bytes, most significant first.
    public var bytes: [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
    }

    /// The assigned name ("Heart Rate"), when it is a known assigned number.
    public var name: String? { shortForm.flatMap { AssignedNumbers.names[$0] } }

    /// The short form in upper case ("180D"), else the 32-bit one, else the full upper-case form.
    public var description: String {
        if let shortForm { return hex(UInt64(shortForm), 4).uppercased() }
        if let value32 { return hex(UInt64(value32), 8).uppercased() }
        return uuidString.uppercased()
    }

    /// Orders by the 128-bit value.
    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }
}

private func hex(_ value: UInt64, _ digits: Int) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: Swift.max(digits - text.count, 0)) + text
}
