/// A value decoded from a characteristic's or descriptor's bytes.
public protocol Readable: Sendable {
    /// Decodes `bytes`; throws a ``ValueDecodingError`` when they are not a value of this type.
    init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError)
}

/// A value encoded as a characteristic's or descriptor's bytes.
public protocol Writable: Sendable {
    /// The bytes to write.
    var bluetoothBytes: [UInt8] { get }
}

extension Readable where Self: FixedWidthInteger {
    /// Decodes exactly `bitWidth / 8` little-endian bytes.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, decoding: String(describing: Self.self))
        self = try reader.read(Self.self)
        try reader.expectEnd()
    }
}

extension Writable where Self: FixedWidthInteger {
    /// The little-endian bytes.
    public var bluetoothBytes: [UInt8] {
        (0..<(Self.bitWidth / 8)).map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) }
    }
}

extension UInt8: Readable, Writable {}
extension UInt16: Readable, Writable {}
extension UInt32: Readable, Writable {}
extension UInt64: Readable, Writable {}
extension Int8: Readable, Writable {}
extension Int16: Readable, Writable {}
extension Int32: Readable, Writable {}
extension Int64: Readable, Writable {}

extension Bool: Readable, Writable {
    /// Decodes one byte, 0 or 1.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        let byte = try UInt8(bluetoothBytes: bytes)
        guard byte <= 1 else {
            throw ValueDecodingError(typeName: "Bool", offset: 0, reason: .invalidValue("\(byte) is neither 0 nor 1"))
        }
        self = byte == 1
    }

    /// One byte, 0 or 1.
    public var bluetoothBytes: [UInt8] { [self ? 1 : 0] }
}

extension String: Readable, Writable {
    /// Decodes UTF-8 (trailing NUL bytes dropped).
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        var reader = ByteReader(bytes, decoding: "String")
        self = try reader.readUTF8Remaining()
    }

    /// The UTF-8 bytes.
    public var bluetoothBytes: [UInt8] { Array(utf8) }
}

extension Array: Readable, Writable where Element == UInt8 {
    /// The bytes as they are.
    public init(bluetoothBytes bytes: [UInt8]) throws(ValueDecodingError) {
        self = bytes
    }

    /// The bytes as they are.
    public var bluetoothBytes: [UInt8] { self }
}
