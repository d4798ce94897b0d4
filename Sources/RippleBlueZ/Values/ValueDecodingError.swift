/// Why bytes are not a value of a ``Readable`` type.
public struct ValueDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// `needed` bytes were needed at the offset; `available` were left.
        case tooFewBytes(needed: Int, available: Int)
        /// The value has a fixed size `expected`; `found` bytes came.
        case unexpectedLength(expected: Int, found: Int)
        /// The bytes are not UTF-8.
        case invalidUTF8
        /// A reserved or impossible value, explained.
        case invalidValue(String)
    }

    /// The type being decoded ("UInt16", "HeartRateMeasurement").
    public var typeName: String
    /// Where in the bytes.
    public var offset: Int
    /// What was wrong.
    public var reason: Reason

    /// An error decoding `typeName` at `offset`.
    public init(typeName: String, offset: Int, reason: Reason) {
        self.typeName = typeName
        self.offset = offset
        self.reason = reason
    }

    /// "UInt16: 2 bytes needed at offset 0, 1 available".
    public var description: String {
        switch reason {
        case let .tooFewBytes(needed, available):
            "\(typeName): \(needed) bytes needed at offset \(offset), \(available) available"
        case let .unexpectedLength(expected, found):
            "\(typeName): \(expected) bytes expected, \(found) found"
        case .invalidUTF8:
            "\(typeName): the bytes at offset \(offset) are not UTF-8"
        case let .invalidValue(explanation):
            "\(typeName): invalid value at offset \(offset): \(explanation)"
        }
    }
}
