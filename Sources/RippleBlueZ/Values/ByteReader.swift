/// The byte order of a multi-byte value (GATT values are little-endian).
public enum Endianness: Sendable, Hashable {
    /// Least significant byte first.
    case little
    /// Most significant byte first.
    case big
}

/// Reads values from bytes front to back; every read is bounds-checked and throws a
/// ``ValueDecodingError`` naming the type being decoded, never traps.
public struct ByteReader: Sendable {
    /// The bytes.
    public let bytes: [UInt8]
    /// The type being decoded, for errors.
    public let typeName: String
    /// How many bytes were read.
    public private(set) var offset = 0

    /// A reader of `bytes` decoding `typeName`.
    public init(_ bytes: [UInt8], decoding typeName: String) {
        self.bytes = bytes
        self.typeName = typeName
    }

    /// The bytes left.
    public var remaining: Int { bytes.count - offset }
    /// Whether every byte was read.
    public var isAtEnd: Bool { remaining == 0 }

    /// The error for `reason` at the current offset.
    public func error(_ reason: ValueDecodingError.Reason) -> ValueDecodingError {
        ValueDecodingError(typeName: typeName, offset: offset, reason: reason)
    }

    /// Reads `count` bytes.
    public mutating func readBytes(_ count: Int) throws(ValueDecodingError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw error(.tooFewBytes(needed: count, available: remaining)) }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// Reads every byte left.
    public mutating func readRemainingBytes() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    /// Reads an integer of `type`'s size in `endian` order.
    public mutating func read<T: FixedWidthInteger>(_ type: T.Type, endian: Endianness = .little) throws(ValueDecodingError) -> T {
        let size = T.bitWidth / 8
        let raw = try readBytes(size)
        var value: T = 0
        for (index, byte) in raw.enumerated() {
            let shift = endian == .little ? index * 8 : (size - 1 - index) * 8
            value |= T(truncatingIfNeeded: byte) << shift
        }
        return value
    }

    /// Reads a 24-bit unsigned integer.
    public mutating func readUInt24(endian: Endianness = .little) throws(ValueDecodingError) -> UInt32 {
        let raw = try readBytes(3)
        let ordered = endian == .little ? raw : raw.reversed()
        return UInt32(ordered[0]) | UInt32(ordered[1]) << 8 | UInt32(ordered[2]) << 16
    }

    /// Reads an IEEE 754 single-precision float.
    public mutating func readFloat32(endian: Endianness = .little) throws(ValueDecodingError) -> Float {
        Float(bitPattern: try read(UInt32.self, endian: endian))
    }

    /// Reads an IEEE 754 double-precision float.
    public mutating func readFloat64(endian: Endianness = .little) throws(ValueDecodingError) -> Double {
        Double(bitPattern: try read(UInt64.self, endian: endian))
    }

    /// Reads UTF-8 text from every byte left (trailing NUL bytes dropped).
    public mutating func readUTF8Remaining() throws(ValueDecodingError) -> String {
        var raw = bytes[offset...]
        while raw.last == 0 { raw = raw.dropLast() }
        guard let text = String(validating: raw, as: UTF8.self) else { throw error(.invalidUTF8) }
        offset = bytes.count
        return text
    }

    /// Throws ``ValueDecodingError/Reason/unexpectedLength(expected:found:)`` if bytes remain.
    public func expectEnd() throws(ValueDecodingError) {
        guard isAtEnd else { throw error(.unexpectedLength(expected: offset, found: bytes.count)) }
    }
}
