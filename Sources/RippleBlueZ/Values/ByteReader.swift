/// Reads the bytes of a characteristic or descriptor value front to back.
///
/// Every read checks that enough bytes are left and throws a ``ValueDecodingError`` naming ``typeName`` and
/// the offset where it failed when they are not; a negative or oversize count throws too, nothing traps.
/// A read that throws leaves ``offset`` where it was.
///
/// ```swift
/// var reader = ByteReader(bytes, typeName: "HeartRateMeasurement")
/// let flags = try reader.read(UInt8.self)
/// let rate = flags & 1 == 0 ? UInt16(try reader.read(UInt8.self)) : try reader.read(UInt16.self)
/// ```
public struct ByteReader: Sendable {
    /// All the bytes being read, including those already consumed.
    public let bytes: [UInt8]
    /// The name of the type being decoded, carried by every error this reader throws.
    public let typeName: String
    /// The position of the next byte to read, counted from the start of ``bytes``.
    public private(set) var offset: Int

    /// Creates a reader positioned at the first of `bytes`, whose errors name `typeName`.
    ///
    /// - Parameters:
    ///   - bytes: all the bytes being read, including those already consumed.
    ///   - typeName: the name of the type being decoded, carried by every error this reader throws.
    public init(_ bytes: [UInt8], typeName: String) {
        self.bytes = bytes
        self.typeName = typeName
        offset = 0
    }

    /// How many bytes are left to read.
    public var remaining: Int { bytes.count - offset }

    /// Whether every byte has been read.
    public var isAtEnd: Bool { offset >= bytes.count }

    /// An error for this reader's ``typeName`` with `reason`, at `offset` (the current offset when nil).
    ///
    /// For decoders built on the reader that find a reserved or unknown value in bytes they have read.
    ///
    /// - Parameters:
    ///   - reason: what was wrong.
    ///   - offset: where, in bytes from the start; nil for the current offset.
    /// - Returns: the error, for the caller to throw.
    public func error(_ reason: ValueDecodingError.Reason, at offset: Int? = nil) -> ValueDecodingError {
        ValueDecodingError(typeName: typeName, offset: offset ?? self.offset, reason: reason)
    }

    /// Reads an integer of `type`'s width laid out in `endian` order and moves past it.
    ///
    /// - Parameters:
    ///   - type: the integer type.
    ///   - endian: the byte order.
    /// - Returns: the integer; for a signed type, the bytes are its two's complement.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer bytes are left than
    ///   the type is wide.
    public mutating func read<T: FixedWidthInteger>(
        _ type: T.Type, endian: Endianness = .little
    ) throws(ValueDecodingError) -> T {
        let width = (T.bitWidth + 7) / 8
        let start = try claim(width)
        var value: T = 0
        for index in 0..<width {
            let shift = endian == .little ? 8 * index : 8 * (width - 1 - index)
            value |= T(truncatingIfNeeded: bytes[start + index]) << shift
        }
        return value
    }

    /// Reads an unsigned 24-bit integer laid out in `endian` order and moves past its 3 bytes.
    ///
    /// - Parameter endian: the byte order.
    /// - Returns: the integer, in `0...0xFF_FFFF`.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than 3 bytes are left.
    public mutating func readUInt24(endian: Endianness = .little) throws(ValueDecodingError) -> UInt32 {
        let start = try claim(3)
        let (first, middle, last) = (UInt32(bytes[start]), UInt32(bytes[start + 1]), UInt32(bytes[start + 2]))
        return endian == .little
            ? first | middle << 8 | last << 16
            : first << 16 | middle << 8 | last
    }

    /// Reads a signed (two's complement) 24-bit integer laid out in `endian` order and moves past its 3 bytes.
    ///
    /// - Parameter endian: the byte order.
    /// - Returns: the integer, sign-extended, in `-0x80_0000...0x7F_FFFF`.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than 3 bytes are left.
    public mutating func readInt24(endian: Endianness = .little) throws(ValueDecodingError) -> Int32 {
        let raw = try readUInt24(endian: endian)
        return Int32(bitPattern: raw << 8) >> 8
    }

    /// Reads an IEEE 754 single-precision number laid out in `endian` order and moves past its 4 bytes.
    ///
    /// - Parameter endian: the byte order.
    /// - Returns: the number, NaN and infinities included.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than 4 bytes are left.
    public mutating func readFloat32(endian: Endianness = .little) throws(ValueDecodingError) -> Float {
        Float(bitPattern: try read(UInt32.self, endian: endian))
    }

    /// Reads an IEEE 754 double-precision number laid out in `endian` order and moves past its 8 bytes.
    ///
    /// - Parameter endian: the byte order.
    /// - Returns: the number, NaN and infinities included.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than 8 bytes are left.
    public mutating func readFloat64(endian: Endianness = .little) throws(ValueDecodingError) -> Double {
        Double(bitPattern: try read(UInt64.self, endian: endian))
    }

    /// Reads the next `count` bytes as they are and moves past them.
    ///
    /// - Parameter count: how many bytes.
    /// - Returns: the bytes (empty when `count` is 0).
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than `count` are left,
    ///   ``ValueDecodingError/Reason/invalidValue(_:)`` when `count` is negative.
    public mutating func readBytes(_ count: Int) throws(ValueDecodingError) -> [UInt8] {
        let start = try claim(count)
        return Array(bytes[start..<start + count])
    }

    /// Reads every byte left as it is; the reader is then at its end.
    /// - Returns: the bytes, empty when none were left.
    public mutating func readRemainingBytes() -> [UInt8] {
        let rest = Array(bytes[min(offset, bytes.count)...])
        offset = bytes.count
        return rest
    }

    /// Reads the next `count` bytes as a UTF-8 string, dropping NUL bytes at its end, and moves past them
    /// (a read that throws moves nothing, like every other).
    ///
    /// - Parameter count: how many bytes the string takes.
    /// - Returns: the string (NUL bytes inside it are kept).
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than `count` are left,
    ///   ``ValueDecodingError/Reason/invalidValue(_:)`` when `count` is negative,
    ///   ``ValueDecodingError/Reason/invalidUTF8`` (at the string's first byte) when the bytes are not UTF-8.
    public mutating func readUTF8(count: Int) throws(ValueDecodingError) -> String {
        let start = offset
        let raw = try readBytes(count)
        do {
            return try decodeUTF8(raw, at: start)
        } catch {
            offset = start
            throw error
        }
    }

    /// Reads every byte left as a UTF-8 string, dropping NUL bytes at its end; the reader is then at its end.
    /// - Returns: the string, empty when no bytes were left.
    /// - Throws: ``ValueDecodingError/Reason/invalidUTF8`` (at the string's first byte) when the bytes are
    ///   not UTF-8.
    public mutating func readUTF8Remaining() throws(ValueDecodingError) -> String {
        let start = offset
        let raw = readRemainingBytes()
        do {
            return try decodeUTF8(raw, at: start)
        } catch {
            offset = start
            throw error
        }
    }

    /// Moves past the next `count` bytes without reading them.
    ///
    /// - Parameter count: how many bytes.
    /// - Throws: ``ValueDecodingError/Reason/tooFewBytes(needed:available:)`` when fewer than `count` are left,
    ///   ``ValueDecodingError/Reason/invalidValue(_:)`` when `count` is negative.
    public mutating func skip(_ count: Int) throws(ValueDecodingError) {
        _ = try claim(count)
    }

    /// Checks that every byte has been read, for values whose length is fixed.
    /// - Throws: ``ValueDecodingError/Reason/unexpectedLength(expected:found:)`` at the first unread byte,
    ///   expecting the bytes read so far and finding all of them, when any are left.
    public func expectEnd() throws(ValueDecodingError) {
        guard isAtEnd else {
            throw error(.unexpectedLength(expected: offset, found: bytes.count))
        }
    }

    /// Checks that `count` bytes are left and moves past them.
    /// - Returns: the offset of the first of them.
    private mutating func claim(_ count: Int) throws(ValueDecodingError) -> Int {
        guard count >= 0 else {
            throw error(.invalidValue("a count of \(count) bytes is negative"))
        }
        guard count <= remaining else {
            throw error(.tooFewBytes(needed: count, available: remaining))
        }
        let start = offset
        offset += count
        return start
    }

    /// `raw` without its trailing NUL bytes as a string, or `invalidUTF8` at `start`.
    private func decodeUTF8(_ raw: [UInt8], at start: Int) throws(ValueDecodingError) -> String {
        var end = raw.count
        while end > 0, raw[end - 1] == 0 { end -= 1 }
        guard let string = String(validating: raw[..<end], as: UTF8.self) else {
            throw error(.invalidUTF8, at: start)
        }
        return string
    }
}
