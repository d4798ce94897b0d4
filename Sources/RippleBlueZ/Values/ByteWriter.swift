/// Builds the bytes of a characteristic or descriptor value front to back: the inverse of ``ByteReader``.
///
/// ```swift
/// var writer = ByteWriter()
/// writer.append(UInt8(0x01))
/// writer.append(UInt16(1000))
/// let value = writer.bytes   // [0x01, 0xE8, 0x03]
/// ```
public struct ByteWriter: Sendable, Hashable {
    /// The bytes appended so far.
    public private(set) var bytes: [UInt8]

    /// Creates an empty writer.
    public init() {
        bytes = []
    }

    /// Appends `value` in `endian` order, as many bytes as its type is wide (a signed value in two's complement).
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - endian: the byte order.
    public mutating func append<T: FixedWidthInteger>(_ value: T, endian: Endianness = .little) {
        let width = (T.bitWidth + 7) / 8
        for index in 0..<width {
            let shift = endian == .little ? 8 * index : 8 * (width - 1 - index)
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
        }
    }

    /// Appends the low 24 bits of `value` as 3 bytes in `endian` order; higher bits are dropped.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - endian: the byte order.
    public mutating func appendUInt24(_ value: UInt32, endian: Endianness = .little) {
        let (low, middle, high) = (
            UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value >> 16)
        )
        bytes += endian == .little ? [low, middle, high] : [high, middle, low]
    }

    /// Appends `value` as a signed (two's complement) 24-bit integer of 3 bytes in `endian` order; a value outside
    /// `-0x80_0000...0x7F_FFFF` loses its high bits.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - endian: the byte order.
    public mutating func appendInt24(_ value: Int32, endian: Endianness = .little) {
        appendUInt24(UInt32(bitPattern: value), endian: endian)
    }

    /// Appends `value` as an IEEE 754 single-precision number, 4 bytes in `endian` order.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - endian: the byte order.
    public mutating func appendFloat32(_ value: Float, endian: Endianness = .little) {
        append(value.bitPattern, endian: endian)
    }

    /// Appends `value` as an IEEE 754 double-precision number, 8 bytes in `endian` order.
    ///
    /// - Parameters:
    ///   - value: the value.
    ///   - endian: the byte order.
    public mutating func appendFloat64(_ value: Double, endian: Endianness = .little) {
        append(value.bitPattern, endian: endian)
    }

    /// Appends `bytes` as they are.
    ///
    /// - Parameter more: the bytes.
    public mutating func append(bytes more: some Sequence<UInt8>) {
        bytes.append(contentsOf: more)
    }

    /// Appends the UTF-8 bytes of `string`, without a terminating NUL.
    ///
    /// - Parameter string: the text.
    public mutating func append(utf8 string: String) {
        bytes.append(contentsOf: string.utf8)
    }
}
