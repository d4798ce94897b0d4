/// A Bluetooth UUID: the 128-bit identifier of a service, a characteristic or a descriptor.
///
/// The SIG's assigned numbers are 16- or 32-bit values standing for a UUID on the Bluetooth Base UUID
/// `00000000-0000-1000-8000-00805F9B34FB`: `0x180D` is `0000180d-0000-1000-8000-00805f9b34fb`. All forms are
/// stored as the full 128 bits, so the same UUID compares equal however it was written.
///
/// ```swift
/// let heartRate: BluetoothUUID = 0x180D
/// heartRate == "0000180D-0000-1000-8000-00805F9B34FB"   // true
/// heartRate.description   // "180D"
/// heartRate.uuidString    // "0000180d-0000-1000-8000-00805f9b34fb"
/// heartRate.name          // "Heart Rate"
/// ```
///
/// An integer literal is a 16-bit number (`BluetoothUUID(0x180D)`); write a 32-bit one as
/// `BluetoothUUID(UInt32(0x1234_5678))`.
public struct BluetoothUUID: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The first 64 bits, most significant first.
    private let high: UInt64
    /// The last 64 bits.
    private let low: UInt64

    /// The last 64 bits of the Bluetooth Base UUID (`8000-00805F9B34FB`).
    private static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    /// The low 32 bits of the first half of the Bluetooth Base UUID (`0000-1000`).
    private static let baseHighLow32: UInt64 = 0x0000_1000

    /// Creates the UUID from its 128 bits, given as two halves, most significant first.
    ///
    /// - Parameters:
    ///   - high: the most significant 64 bits.
    ///   - low: the least significant 64 bits.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Creates the UUID that the 16-bit assigned number `value` stands for, on the Bluetooth Base UUID.
    ///
    /// - Parameter value: the 16-bit assigned number, such as `0x180D` (Heart Rate).
    public init(_ value: UInt16) {
        self.init(UInt32(value))
    }

    /// Creates the UUID that the 32-bit assigned number `value` stands for, on the Bluetooth Base UUID.
    ///
    /// - Parameter value: the 32-bit assigned number.
    public init(_ value: UInt32) {
        self.init(high: UInt64(value) << 32 | Self.baseHighLow32, low: Self.baseLow)
    }

    /// Creates the UUID for a 16-bit integer literal, an assigned number: `let battery: BluetoothUUID = 0x180F`.
    ///
    /// - Parameter value: the literal.
    public init(integerLiteral value: UInt16) {
        self.init(value)
    }

    /// Creates the UUID from 2, 4 or 16 bytes, most significant first (a 16- or 32-bit assigned number, or
    /// the full 128 bits).
    /// - Parameter bytes: 2, 4 or 16 bytes, most significant first.
    /// - Returns: nil when `bytes` has another length.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 2:
            self.init(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        case 4:
            self.init(bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case 16:
            self.init(
                high: bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) },
                low: bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            )
        default:
            return nil
        }
    }

    /// The 16 bytes of the UUID, most significant first (the order the string form reads in).
    public var bytes: [UInt8] {
        (0..<16).map { index in
            let half = index < 8 ? high : low
            return UInt8(truncatingIfNeeded: half >> (8 * (7 - index % 8)))
        }
    }

    /// The 32-bit assigned number this UUID stands for, or nil when it is not on the Bluetooth Base UUID.
    ///
    /// A 16-bit number is a 32-bit one too: `BluetoothUUID(0x180D).value32` is `0x0000180D`.
    public var value32: UInt32? {
        guard low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHighLow32 else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The 16-bit assigned number this UUID stands for, or nil when it is not a 16-bit number on the
    /// Bluetooth Base UUID.
    public var shortForm: UInt16? {
        guard let value = value32, value <= UInt32(UInt16.max) else { return nil }
        return UInt16(truncatingIfNeeded: value)
    }

    /// The full lower-case form, 36 characters with hyphens, exactly as BlueZ writes UUIDs on D-Bus:
    /// `"0000180d-0000-1000-8000-00805f9b34fb"`.
    public var uuidString: String {
        Self.hyphenated(
            Hex.digits(of: high, count: 16, uppercase: false) + Hex.digits(of: low, count: 16, uppercase: false))
    }

    /// The shortest upper-case form, as CoreBluetooth's `CBUUID.uuidString` writes it: 4 hex digits for a
    /// 16-bit assigned number (`"180D"`), 8 for a 32-bit one, otherwise the full 36 characters with hyphens.
    public var description: String {
        if let short = shortForm { return Hex.digits(of: UInt64(short), count: 4, uppercase: true) }
        if let value = value32 { return Hex.digits(of: UInt64(value), count: 8, uppercase: true) }
        return Self.hyphenated(
            Hex.digits(of: high, count: 16, uppercase: true) + Hex.digits(of: low, count: 16, uppercase: true))
    }

    /// The assigned name of a 16-bit UUID, as the Bluetooth SIG spells it (`"Heart Rate"`,
    /// `"Client Characteristic Configuration"`), from ``AssignedNumbers``; nil when the number is not in that
    /// table or the UUID is not a 16-bit one.
    public var name: String? {
        shortForm.flatMap(AssignedNumbers.name(for:))
    }

    /// Orders UUIDs by their 128-bit value.
    /// - Parameters:
    ///   - lhs: a UUID.
    ///   - rhs: another UUID.
    /// - Returns: whether `lhs` is less than `rhs` as 128-bit unsigned integers.
    public static func < (lhs: BluetoothUUID, rhs: BluetoothUUID) -> Bool {
        (lhs.high, lhs.low) < (rhs.high, rhs.low)
    }

    /// `digits` (32 hex digits) with hyphens in the 8-4-4-4-12 places.
    private static func hyphenated(_ digits: String) -> String {
        // A plain counter, not `enumerated()`: see `init(_:)`'s quick path.
        var result = ""
        result.reserveCapacity(36)
        var index = 0
        for digit in digits.unicodeScalars {
            if index == 8 || index == 12 || index == 16 || index == 20 { result.unicodeScalars.append("-") }
            result.unicodeScalars.append(digit)
            index += 1
        }
        return result
    }
}
