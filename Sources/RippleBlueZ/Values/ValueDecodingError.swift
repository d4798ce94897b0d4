/// Why bytes read from a characteristic or a descriptor could not be decoded as the value asked for.
///
/// Thrown by ``ByteReader`` and by every ``Readable`` conformance. Bytes from a peripheral never trap:
/// whatever is wrong with them ends up as one of these, naming the type being decoded (``typeName``), where
/// in the buffer the problem was found (``offset``) and what it was (``reason``).
public struct ValueDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong with the bytes.
    public enum Reason: Sendable, Hashable {
        /// A read needed `needed` bytes but only `available` were left.
        case tooFewBytes(needed: Int, available: Int)
        /// A value of exact size had the wrong length: `expected` bytes were a whole value, `found` were given.
        case unexpectedLength(expected: Int, found: Int)
        /// The bytes of a string were not valid UTF-8.
        case invalidUTF8
        /// The bytes were read but their value is reserved or impossible: an explanation of what and why.
        case invalidValue(String)
        /// The value uses a format (a flag, an opcode, a version) this decoder does not know: which one.
        case unsupportedFormat(String)
    }

    /// The name of the type being decoded, such as `"UInt16"` or `"HeartRateMeasurement"`.
    public var typeName: String
    /// The position in the buffer, counted in bytes from its start, where the problem was found.
    public var offset: Int
    /// What was wrong.
    public var reason: Reason

    /// Creates an error for decoding `typeName` that went wrong at byte `offset` for `reason`.
    ///
    /// - Parameters:
    ///   - typeName: the name of the type being decoded, such as `"UInt16"` or `"HeartRateMeasurement"`.
    ///   - offset: the position in the buffer, counted in bytes from its start, where the problem was found.
    ///   - reason: what was wrong.
    public init(typeName: String, offset: Int, reason: Reason) {
        self.typeName = typeName
        self.offset = offset
        self.reason = reason
    }

    /// A sentence naming the type, the problem and the offset, such as
    /// `"HeartRate: 3 bytes needed at offset 1, 1 available"`.
    public var description: String {
        switch reason {
        case .tooFewBytes(let needed, let available):
            "\(typeName): \(Self.bytes(needed)) needed at offset \(offset), \(available) available"
        case .unexpectedLength(let expected, let found):
            "\(typeName): \(Self.bytes(expected)) expected, \(found) found (extra bytes from offset \(offset))"
        case .invalidUTF8:
            "\(typeName): invalid UTF-8 at offset \(offset)"
        case .invalidValue(let explanation):
            "\(typeName): invalid value at offset \(offset): \(explanation)"
        case .unsupportedFormat(let explanation):
            "\(typeName): unsupported format at offset \(offset): \(explanation)"
        }
    }

    /// `"1 byte"`, `"2 bytes"`, …
    private static func bytes(_ count: Int) -> String {
        count == 1 ? "1 byte" : "\(count) bytes"
    }
}
